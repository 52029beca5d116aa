"""The agent's per-kernel state: KernelAgent, the kernel's event loop, which notebook this is."""
