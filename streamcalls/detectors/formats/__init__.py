"""The text formats, one small module each, declared on the engine and its parts.

:data:`FORMATS` lists them in registration order (the order of ``DETECTORS``).  A new format is
appended: the fuzz harness names detectors by their place here (``tests/support/fuzzing.py``, a
bit of an input's header each), and saved inputs keep their meaning only if the places do.

May import: the core's leaf modules, the engine and the parts.
"""

from __future__ import annotations

from .._engine.detector import Detector
from .answer import AnswerDetector
from .apertus import ApertusDetector
from .cohere import CohereCommandDetector
from .deepseek import DeepSeekDetector
from .dsml import DsmlDetector
from .fence import FenceDetector
from .functionary_v31 import FunctionaryV31Detector
from .functionary_v32 import FunctionaryV32Detector
from .functiongemma import FunctionGemmaDetector
from .gemma4 import Gemma4Detector
from .gigachat import GigaChatDetector
from .glm import GlmDetector
from .granite import GraniteDetector, GraniteFunctionCallingDetector
from .harmony import HarmonyDetector
from .hermes import HermesDetector
from .internlm import InternLMDetector
from .jamba import JambaDetector
from .kimi import KimiDetector
from .kimi_k3 import KimiK3Detector
from .lfm2 import Lfm2Detector
from .llama import LlamaDetector
from .longcat import LongCatDetector
from .minicpm5 import MiniCpm5Detector
from .minimax import MinimaxDetector
from .minimax_m3 import MinimaxM3Detector
from .mistral import MistralDetector
from .nemotron import NemotronDetector
from .olmo3 import Olmo3Detector
from .phi4_mini import Phi4MiniDetector
from .pythonic import PythonicDetector
from .qwen3_coder import Qwen3CoderDetector
from .rawjson import JsonDetector
from .seed_oss import SeedOssDetector
from .step3 import Step3Detector
from .think import ThinkDetector, ThinkPromptedDetector
from .xlam import XlamDetector

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
    # fxml formats: XML parameters, Python calls, custom literals
    SeedOssDetector,
    Step3Detector,
    MinimaxM3Detector,
    MiniCpm5Detector,
    KimiK3Detector,
    Olmo3Detector,
    Lfm2Detector,
    Gemma4Detector,
    FunctionGemmaDetector,
    # fjson formats (JSON in markup)
    JambaDetector,
    InternLMDetector,
    ApertusDetector,
    CohereCommandDetector,
    GraniteDetector,
    GraniteFunctionCallingDetector,
    Phi4MiniDetector,
    XlamDetector,
    LongCatDetector,
    NemotronDetector,
    GigaChatDetector,
    FunctionaryV31Detector,
    FunctionaryV32Detector,
    AnswerDetector,
)
