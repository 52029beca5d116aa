"""Persistence next to the notebook: the SQLite session store and saved tool outputs.

``sqlite_store.SqliteStore`` implements ``agent.ports.SessionStore`` (its reads in
``reads``); ``spill`` keeps the
full text of truncated tool outputs; ``paths`` says where both live.
"""
