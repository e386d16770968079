"""No checkpoint's own code ever runs (issue 30, item 1).

A `kind: local` checkpoint folder whose config.json maps the auto classes to a `modeling_*.py`
shipped in the folder (or whose tokenizer_config.json does the same for its tokenizer) is refused
by the config check, naming the file and the key, before any job; and every load passes
`trust_remote_code=False`, so that even past the check, an answer "y" on stdin (transformers asks
when the argument is left unset, and `yes | snakemake ...` answers) never imports the folder's module.
"""

from __future__ import annotations

import ast
import io
import json
import sys
from pathlib import Path

import pytest
import yaml

from conftest import SMOKE_CONFIG, run_snakemake
from rlvr_support.config.validate import ConfigError, validate_config
from rlvr_support.lineage.codehash import PACKAGE
from rlvr_support.models import loading

MARKER_CODE = "import pathlib\npathlib.Path({marker!r}).write_text('the checkpoint ran its own code')\n"


def _module(folder: Path, name: str, marker: Path, body: str) -> None:
    (folder / f"{name}.py").write_text(MARKER_CODE.format(marker=str(marker)) + body)


def custom_model(folder: Path, marker: Path) -> Path:
    """An unknown model_type whose config and model classes are modules of the folder."""
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps({
        "model_type": "evil-llm", "architectures": ["EvilForCausalLM"],
        "auto_map": {"AutoConfig": "configuration_evil.EvilConfig",
                     "AutoModelForCausalLM": "modeling_evil.EvilForCausalLM"}}))
    (folder / "model.safetensors").write_bytes(b"\0" * 8)
    _module(folder, "configuration_evil", marker,
            "from transformers import PretrainedConfig\n"
            "class EvilConfig(PretrainedConfig):\n    model_type = 'evil-llm'\n")
    _module(folder, "modeling_evil", marker, "class EvilForCausalLM:\n    pass\n")
    return folder


def custom_tokenizer(folder: Path, marker: Path) -> Path:
    """A real (tiny) Llama whose tokenizer_config.json maps AutoTokenizer to a module of the folder."""
    import torch

    from rlvr_support.data.toyworld.tokenizer import build_tokenizer

    tok = build_tokenizer()
    torch.manual_seed(0)
    arch = {"hidden_size": 16, "intermediate_size": 32, "num_layers": 1, "num_heads": 2, "max_positions": 32}
    loading.toy_llama(len(tok), arch, tok).save_pretrained(folder)
    tok.save_pretrained(folder)
    cfg = json.loads((folder / "tokenizer_config.json").read_text())
    cfg["auto_map"] = {"AutoTokenizer": ["tokenization_evil.EvilTokenizer", None]}
    cfg["tokenizer_class"] = "EvilTokenizer"
    (folder / "tokenizer_config.json").write_text(json.dumps(cfg))
    _module(folder, "tokenization_evil", marker,
            "from transformers import PreTrainedTokenizerFast\n"
            "class EvilTokenizer(PreTrainedTokenizerFast):\n    pass\n")
    return folder


VARIANTS = {"config": (custom_model, "config.json", "auto_map"),
            "tokenizer": (custom_tokenizer, "tokenizer_config.json", "auto_map")}


@pytest.fixture(params=sorted(VARIANTS))
def crafted(request, tmp_path):
    make, file, key = VARIANTS[request.param]
    marker = tmp_path / "ran.txt"
    return make(tmp_path / "ckpt", marker), marker, file, key


@pytest.fixture
def stdin_yes(monkeypatch):
    """What `yes | snakemake ...` gives transformers' [y/N] prompt."""
    monkeypatch.setattr(sys, "stdin", io.StringIO("y\n" * 100))


def _with_checkpoint(folder: Path) -> dict:
    cfg = yaml.safe_load(SMOKE_CONFIG.read_text())
    cfg["checkpoints"] = {"theirs": {"kind": "local", "path": str(folder), "base": "base"}}
    return cfg


def test_the_config_check_refuses_a_folder_that_asks_for_its_own_code(crafted, stdin_yes):
    folder, marker, file, key = crafted
    with pytest.raises(ConfigError) as e:
        validate_config(_with_checkpoint(folder))
    msg = str(e.value)
    assert "checkpoints.theirs.path" in msg and f"{folder / file}: key {key}" in msg, msg
    assert not marker.exists()


def test_an_unknown_model_type_is_refused_naming_the_key(tmp_path):
    folder = tmp_path / "ckpt"
    folder.mkdir()
    (folder / "config.json").write_text('{"model_type": "not-a-transformers-model"}')
    (folder / "model.safetensors").write_bytes(b"\0" * 8)
    with pytest.raises(ConfigError) as e:
        validate_config(_with_checkpoint(folder))
    assert f"{folder / 'config.json'}: key model_type 'not-a-transformers-model'" in str(e.value)


def test_loading_never_imports_the_folders_module_even_when_stdin_says_yes(crafted, stdin_yes, monkeypatch):
    folder, marker, file, key = crafted
    with pytest.raises(ValueError, match=f"{file}: key {key}"):
        loading.load_policy(folder)
    assert not marker.exists()
    # Past the check (as if it missed a way in), transformers itself refuses: trust_remote_code=False
    # is passed, so it neither asks nor reads the "y" waiting on stdin.
    monkeypatch.setattr(loading, "remote_code_problem", lambda path: None)
    with pytest.raises(ValueError, match="cannot load"):
        loading.load_policy(folder)
    with pytest.raises(ValueError, match="cannot load"):
        loading.load_tokenizer(folder)
    assert not marker.exists(), "a checkpoint's own module was imported"
    assert sys.stdin.read(2) == "y\n", "something read the prompt's answer from stdin"


def _loads(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in ("from_pretrained", "LLM"):
                yield node


def test_every_load_in_the_package_passes_trust_remote_code_false():
    """Every `from_pretrained(...)` (model, tokenizer, config) and vLLM `LLM(...)` of the package."""
    calls, bad = 0, []
    for f in sorted(PACKAGE.rglob("*.py")):
        for call in _loads(ast.parse(f.read_text())):
            calls += 1
            kw = {k.arg: k.value for k in call.keywords}
            value = kw.get("trust_remote_code")
            if not (isinstance(value, ast.Constant) and value.value is False):
                bad.append(f"{f.relative_to(PACKAGE)}:{call.lineno}")
    assert calls >= 5, "the scan found no loads: has the loading code moved?"
    assert not bad, f"loads without trust_remote_code=False: {bad}"


def test_trl_gets_trust_remote_code_false(tmp_path):
    from rlvr_support.training.stage import grpo_config

    rl = {"steps": 1, "prompts_per_step": 1, "group_size": 2, "lr": 1e-4, "max_completion_tokens": 4,
          "temperature": 1.0, "beta": 0.0, "loss_type": "grpo", "epsilon": 0.2, "log_every": 1, "save_every": 1}
    assert grpo_config(tmp_path, rl, 0).trust_remote_code is False


@pytest.mark.snakemake
def test_snakemake_fails_before_any_job_with_yes_on_stdin(tmp_path):
    marker = tmp_path / "ran.txt"
    folder = custom_model(tmp_path / "ckpt", marker)
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump(_with_checkpoint(folder)))
    work = tmp_path / "work"
    work.mkdir()
    proc = run_snakemake(work, "all", config=config, check=False, stdin="y\n" * 1000, timeout=300)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert f"{folder / 'config.json'}: key auto_map" in out, out[-3000:]
    assert not marker.exists()
    assert not (work / "results").exists(), "a job ran before the config check refused the checkpoint"
