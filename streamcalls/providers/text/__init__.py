"""plain text (a model's raw output, read by the text detectors): everything this provider's wire knows, in one package."""
