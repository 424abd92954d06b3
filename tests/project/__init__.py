"""Tests of the project itself: the docs and README, the layering of modules, the version, the
pre-commit configuration, the coverage floors and the benchmark programs."""
