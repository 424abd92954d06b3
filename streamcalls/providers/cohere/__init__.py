"""Cohere v2 chat: everything this provider's wire knows, in one package."""
