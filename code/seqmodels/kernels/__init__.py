"""Fast code: the batched recurrent kernel that the experiments train with, tested against the
readable models of :mod:`seqmodels.models`. Imports only :mod:`seqmodels.common`."""
