"""Google Gemini (the Gemini API and Vertex AI): everything this provider's wire knows, in one package."""
