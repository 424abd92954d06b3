"""Tests run over every recorded stream in tests/data (whole, one byte at a time, at random
splits, under auto) and the fuzz regressions: the corpus is the oracle."""
