"""Shared utilities: input checks, numerical primitives, the optimiser, statistics, timing on one BLAS
thread, word vectors, PCA and read-out probes. Nothing here imports a model or an experiment."""
