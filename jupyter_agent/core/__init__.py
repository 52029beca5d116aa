"""Pure values shared by every layer: ids, sessions, messages, parts, events.

Nothing here does I/O or imports IPython, widgets or litellm.
"""
