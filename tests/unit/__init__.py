"""Tests of one piece at a time, sans-IO and in process: the framers, the scanner, the
adapters, the detectors, the codec, the turn, the tools and the writers."""
