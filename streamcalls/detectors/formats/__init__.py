"""The text formats, one small module each, declared on the engine and its parts.

:data:`FORMATS` lists them in registration order (the order of ``DETECTORS``).

May import: the core's leaf modules, the engine and the parts.
"""

from __future__ import annotations

from .._engine.detector import Detector
from .deepseek import DeepSeekDetector
from .dsml import DsmlDetector
from .fence import FenceDetector
from .glm import GlmDetector
from .harmony import HarmonyDetector
from .hermes import HermesDetector
from .kimi import KimiDetector
from .llama import LlamaDetector
from .minimax import MinimaxDetector
from .mistral import MistralDetector
from .pythonic import PythonicDetector
from .qwen3_coder import Qwen3CoderDetector
from .rawjson import JsonDetector
from .think import ThinkDetector, ThinkPromptedDetector

__all__ = ("FORMATS",)

FORMATS: tuple[type[Detector], ...] = (
    FenceDetector,
    JsonDetector,
    HermesDetector,
    MistralDetector,
    LlamaDetector,
    DeepSeekDetector,
    HarmonyDetector,
    KimiDetector,
    PythonicDetector,
    Qwen3CoderDetector,
    GlmDetector,
    MinimaxDetector,
    DsmlDetector,
    ThinkDetector,
    ThinkPromptedDetector,
)
