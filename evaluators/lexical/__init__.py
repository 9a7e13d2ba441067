"""Lexical helpers shared by the relevance and completeness rules."""
