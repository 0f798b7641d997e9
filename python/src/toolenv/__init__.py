"""ToolEnv's trainer glue: clients of the simulator and the verl / TRL integrations (imported on demand)."""

from toolenv.client import AsyncToolEnvClient, ProblemError, ToolEnvClient

__all__ = ["AsyncToolEnvClient", "ProblemError", "ToolEnvClient"]
__version__ = "0.1.0"
