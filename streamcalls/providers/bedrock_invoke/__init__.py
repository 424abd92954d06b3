"""AWS Bedrock InvokeModel (each model's own events in event-stream frames): everything this provider's wire knows, in one package."""
