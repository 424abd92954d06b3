"""Anthropic Messages: everything this provider's wire knows, in one package."""
