"""Which text detectors a model family needs: ``model="Qwen/Qwen3-Coder-30B-A3B-Instruct"``.

Users know their model, not the format it writes its calls in.  Given a
model name -- a Hugging Face id, an Ollama tag (``qwen3-coder:30b``), a
gateway's name (``openrouter/openai/gpt-oss-120b``) -- :func:`detectors_for_model`
looks it up in :data:`MODEL_FAMILIES`: the first pattern found anywhere in
the name, ignoring case, gives the family's detectors.  A
:class:`~streamcalls.StreamParser` adds them to its default detectors; an
unknown name adds none.  The order matters where names overlap: a Hermes
fine-tune of Llama writes Hermes calls, DeepSeek's distilled Qwen models
write DeepSeek's tokens, DeepSeek-V3.2 is not V3, Qwen3-Coder is not Qwen3.

A family whose models write their reasoning into the text between tags gets
``think`` too (reasoning opened by its tag; never ``think_prompted``, which
would turn a whole answer into reasoning when a server had already taken the
reasoning out).
"""

from __future__ import annotations

import functools
import re

__all__ = ("MODEL_FAMILIES", "detectors_for_model")

_SEP = r"[-_ .]?"  # "Llama-3.2", "llama3.2", "Kimi_K2", "minimax m2"

MODEL_FAMILIES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("hermes", ("hermes",)),  # NousResearch/Hermes-3-Llama-3.1-8B, hermes3:8b
    # DeepSeek-V3.2 and V4 write DSML; V3, V3.1 and R1 (and R1's distills of Qwen and Llama)
    # their older tokens -- so V3.2 and V4 come first.
    (rf"deepseek{_SEP}v(?:3\.[2-9]|[4-9])", ("dsml",)),  # DeepSeek-V3.2, -V3.2-Exp, -V4
    (rf"deepseek{_SEP}r1", ("deepseek", "think")),
    (rf"deepseek{_SEP}v3", ("deepseek",)),
    (r"gpt-oss", ("harmony",)),
    # Qwen3-Coder and Qwen3.5 before Qwen3; Step-3.5 and MiMo-V2 write Qwen3-Coder's markup.
    (rf"qwen3{_SEP}coder|qwen3\.[5-9]", ("qwen3_coder",)),  # Qwen3-Coder, Qwen3.5
    (rf"step{_SEP}3\.5|mimo{_SEP}v2", ("qwen3_coder",)),  # Step-3.5-Flash, MiMo-V2-Flash
    (r"qwen(?:2|3)|qwq", ("hermes", "think")),  # Qwen2.5, Qwen3, QwQ
    (rf"ernie{_SEP}4\.5", ("hermes", "think", "answer")),  # ERNIE-4.5: <tool_call> after </think>
    (rf"glm{_SEP}(?:4\.[5-9]|[5-9](?![0-9]))", ("glm", "think")),  # GLM-4.5, 4.6, 4.7 and later
    (rf"kimi{_SEP}k2", ("kimi", "think")),
    (rf"llama{_SEP}3\.[23]", ("llama", "pythonic")),
    (rf"llama{_SEP}4", ("llama", "pythonic")),  # Llama 4: a JSON mode and the pythonic one
    (rf"minimax{_SEP}m2", ("minimax", "think")),
    (r"mistral|magistral|devstral", ("mistral",)),
    # fxml formats.  FunctionGemma before Gemma 4 (Gemma 3 and 3n write no tool tokens); MiniMax
    # M3 and Kimi K3 apart from M2 and K2 above; Step3 after Step-3.5 (Qwen3-Coder's markup).
    (rf"seed{_SEP}oss", ("seed_oss", "think")),  # ByteDance-Seed/Seed-OSS-36B-Instruct
    (rf"step{_SEP}3(?![.0-9])", ("step3", "think")),  # stepfun-ai/step3
    (rf"minimax{_SEP}m3", ("minimax_m3", "think")),  # MiniMaxAI/MiniMax-M3
    (rf"minicpm{_SEP}5(?![0-9])", ("minicpm5", "think")),  # openbmb/MiniCPM5-1B
    (rf"kimi{_SEP}k3", ("kimi_k3", "think")),  # moonshotai/Kimi-K3
    (rf"olmo{_SEP}3", ("olmo3", "think")),  # allenai/Olmo-3-7B-Instruct, Olmo-3.1
    (rf"lfm{_SEP}2(?![^/]{{0,4}}vl)", ("lfm2", "think")),  # LiquidAI/LFM2-1.2B, LFM2.5 (not LFM2-VL)
    (r"functiongemma", ("functiongemma",)),  # google/functiongemma-270m-it, functiongemma:270m
    (rf"gemma{_SEP}4", ("gemma4", "think")),  # google/gemma-4-31b-it, gemma4:31b
    # fjson formats (JSON in markup).  Granite 3.x, granite-20b-functioncalling and Granite 4
    # each write their own markup; xLAM-2 before any Llama family (Llama-xLAM-2-8b-fc-r).
    (rf"granite{_SEP}3(?:\.[0-9])?(?![0-9b])", ("granite", "think", "answer")),  # 3.0 to 3.3
    (rf"granite{_SEP}20b{_SEP}function", ("granite_fc",)),
    (rf"granite{_SEP}4", ("hermes",)),  # Granite 4.0: Hermes blocks
    (r"xlam", ("xlam", "think")),
    (r"jamba", ("jamba",)),
    (rf"hunyuan{_SEP}a13b", ("jamba", "think", "answer")),  # Jamba's markup, in <answer>
    (rf"internlm{_SEP}?2|intern{_SEP}s1", ("internlm", "think")),  # InternLM2, 2.5; Intern-S1
    (rf"apertus{_SEP}[0-9]+b{_SEP}instruct", ("apertus", "think")),
    # Command R7B and A (open weights c4ai-command-*, command-a-reasoning; Ollama's command-r7b,
    # command-a), not Command R / R+ (2024), which write an older format.
    (rf"command{_SEP}(?:r7b|a)(?![0-9a-z])", ("cohere_command", "think")),
    (rf"phi{_SEP}4{_SEP}mini(?![-_ .]?reasoning)|firefunction{_SEP}v2", ("phi4_mini",)),
    (rf"longcat{_SEP}flash{_SEP}chat", ("longcat",)),
    (rf"nemotron{_SEP}nano{_SEP}[0-9]+b{_SEP}v2", ("nemotron", "think")),  # not Nemotron 3 Nano
    (rf"gigachat{_SEP}3(?:\.1)?(?![.0-9])", ("gigachat",)),  # 3 and 3.1, not 3.5
    (rf"functionary{_SEP}[a-z]*{_SEP}v3\.1", ("functionary_v31",)),
    (rf"functionary{_SEP}[a-z]*{_SEP}v3\.2", ("functionary_v32",)),
)
"""(pattern, detector names) pairs, tried in order; the first whose pattern is found wins."""

_COMPILED = tuple((re.compile(pattern, re.IGNORECASE), names) for pattern, names in MODEL_FAMILIES)


@functools.lru_cache(maxsize=256)
def detectors_for_model(model: str) -> tuple[str, ...]:
    """The text detectors that a model's family writes its calls for (``()``: unknown).

    ::

        >>> detectors_for_model("openai/gpt-oss-120b")
        ('harmony',)
        >>> detectors_for_model("meta-llama/Llama-3.2-3B-Instruct")
        ('llama', 'pythonic')
    """
    for pattern, names in _COMPILED:
        if pattern.search(model):
            return names
    return ()
