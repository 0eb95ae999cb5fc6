"""Tests of the project around the package: the corpus, the fuzz campaign, benchmarks' accounting."""
