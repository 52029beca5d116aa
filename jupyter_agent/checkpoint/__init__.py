"""Checkpoints: what is recorded before the agent changes something, so a revert can undo a
prompt completely — the project's files (``files.py``, kept in ``blobs.py``), the notebook's
cells (``cells.py``) and the kernel's variables (``names.py`` says which, ``variables.py``
keeps them); ``report.py`` is what a revert says it did."""
