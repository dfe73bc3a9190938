"""What a page shows: the book's plot style, explorable figures, result tables and the diagrams of
the chapters. Imports only :mod:`seqmodels.common`."""
