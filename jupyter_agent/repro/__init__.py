"""Reproducibility: which names code binds and reads, the kernel's hidden state, and a
notebook run again in a fresh kernel compared with what it saved (``%agent verify``)."""
