"""Keep API keys out of everything we store: tool outputs are scrubbed before they are saved.

The rules (which values are secret) live in ``core.redaction`` so the store, exports, logs
and the provider client use the same ones; this module is the loop's short name for them.
"""

from __future__ import annotations

from jupyter_agent.core.redaction import redact, redact_value, register_secret, secret_values

__all__ = ["redact", "redact_value", "register_secret", "secret_values"]
