"""Tests across a real boundary: HTTP to the replay server, the official SDKs, the CLI in a
subprocess, Node, the installed package, the type checker."""
