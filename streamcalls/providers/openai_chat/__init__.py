"""OpenAI Chat Completions, and every server that speaks its wire format: everything this provider's wire knows, in one package."""
