"""Validate generated files with the real frameworks: LLaMA-Factory's own argument parser for the
YAML and DeepSpeed's own config class for the JSON (after transformers fills the "auto" values,
as the Trainer does at run time).

Installed by the `validate` extra (see README, section Configs). Everything here runs on CPU:
- `bf16: true` fails on a CPU in transformers' TrainingArguments before any other check, so the
  bf16 probe is patched to answer as the target NPU/GPU would;
- LLaMA-Factory refuses DeepSpeed outside a distributed launch, so the checks run inside a
  one-rank gloo process group on 127.0.0.1 (what `FORCE_TORCHRUN=1` gives on one device);
- DeepSpeed's CPU backend JIT-compiles a shared-memory collective at init; it is not needed to
  check a config, so it is switched off (saves a C++ build).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.machinery
import importlib.util
import io
import json
import os
import socket
import sys
import types
from pathlib import Path
from types import SimpleNamespace
from typing import Any

REQUIRED = ("llamafactory", "deepspeed", "transformers", "torch")
INSTALL_HINT = ".venv/bin/pip install -e '.[validate]' && .venv/bin/pip install --no-deps llamafactory==0.9.5"


def missing_packages() -> list[str]:
    return [p for p in REQUIRED if importlib.util.find_spec(p) is None]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Frameworks:
    """Imports once per test session; ``check(yaml_path)`` runs LLaMA-Factory's parsing on one file."""

    def __init__(self, monkeypatch):
        mp = monkeypatch
        if importlib.util.find_spec("torchaudio") is None:
            # llamafactory.data (templates) imports torchaudio at module level; a stub is enough for names.
            stub = types.ModuleType("torchaudio")
            stub.__spec__ = importlib.machinery.ModuleSpec("torchaudio", None)
            mp.setitem(sys.modules, "torchaudio", stub)
        mp.setenv("LLAMAFACTORY_VERBOSITY", "WARN")
        # Set only while a check runs, so other tests' subprocesses do not inherit a torchrun environment.
        self._dist_env = {"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(_free_port()), "RANK": "0", "LOCAL_RANK": "0",
                          "WORLD_SIZE": "1", "LOCAL_WORLD_SIZE": "1"}

        import llamafactory
        import transformers.training_args as training_args
        from llamafactory.data.template import TEMPLATES
        from llamafactory.hparams import parser as lf_parser
        from transformers import HfArgumentParser
        from transformers.integrations import deepspeed as hf_ds

        mp.setattr(training_args, "is_torch_bf16_gpu_available", lambda *a, **k: True)
        mp.setattr(lf_parser, "is_torch_bf16_gpu_available", lambda *a, **k: True)
        # The attribute name `torch` in deepspeed.comm is the torch package, so fetch the submodule itself.
        mp.setattr(importlib.import_module("deepspeed.comm.torch"), "build_shm_op", lambda: None)
        import deepspeed

        self.versions = {"llamafactory": llamafactory.__version__, "deepspeed": deepspeed.__version__,
                         "transformers": __import__("transformers").__version__, "torch": __import__("torch").__version__}
        self.templates = set(TEMPLATES)
        self._lf_parser = lf_parser
        self._hf_ds = hf_ds
        self._cli_parser = HfArgumentParser(lf_parser._TRAIN_ARGS, allow_abbrev=False, exit_on_error=False)
        self._mp = mp

    # ------------------------------------------------------------ LLaMA-Factory
    def read_yaml(self, path: Path) -> dict[str, Any]:
        """The YAML read the way `llamafactory-cli train x.yaml` reads it (OmegaConf)."""
        with self._argv(["llamafactory-cli", str(path)]):
            return self._lf_parser.read_args()

    @contextlib.contextmanager
    def _distributed(self):
        saved = {k: os.environ.get(k) for k in self._dist_env}
        os.environ.update(self._dist_env)
        try:
            yield
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v

    @contextlib.contextmanager
    def _argv(self, argv):
        saved = sys.argv
        sys.argv = argv
        try:
            yield
        finally:
            sys.argv = saved

    def parse_strict(self, cfg: dict[str, Any]):
        """Parse as command-line arguments: argparse enforces every Literal choice and type, which
        the YAML (dict) path of HfArgumentParser does not."""
        argv: list[str] = []
        for k, v in cfg.items():
            if v is not None:
                argv += [f"--{k}", str(v)]
        self._hf_ds.unset_hf_deepspeed_config()
        with self._distributed(), contextlib.redirect_stderr(io.StringIO()) as err:
            try:
                return self._cli_parser.parse_args_into_dataclasses(args=argv)
            except argparse.ArgumentError as e:
                raise ValueError(str(e)) from None
            except SystemExit:
                raise ValueError(err.getvalue().strip().splitlines()[-1]) from None

    def train_args(self, cfg: dict[str, Any]):
        """LLaMA-Factory's get_train_args: unknown keys, cross-field rules (quantisation only with
        LoRA, PPO needs a reward model, DeepSpeed needs a distributed launch, ...), TrainingArguments
        post-init (which loads the DeepSpeed file and matches it against the YAML)."""
        self._hf_ds.unset_hf_deepspeed_config()
        with self._distributed():
            return self._lf_parser.get_train_args(dict(cfg))

    def check_yaml(self, path: Path):
        """Both parses; returns (cfg dict, (model, data, training, finetuning, generating) args)."""
        cfg = self.read_yaml(path)
        self.parse_strict(cfg)
        return cfg, self.train_args(cfg)

    # ------------------------------------------------------------ DeepSpeed
    def deepspeed_config(self, ds: dict[str, Any], training_args, hidden_size: int):
        """Fill "auto" from the TrainingArguments as the HF Trainer does, then build DeepSpeed's own
        DeepSpeedConfig (which validates the ZeRO block, offload devices and the batch identity)."""
        from deepspeed.runtime.config import DeepSpeedConfig

        hf = self._hf_ds.HfTrainerDeepSpeedConfig(json.loads(json.dumps(ds)))
        hf.trainer_config_process(training_args)
        model = SimpleNamespace(config=SimpleNamespace(hidden_size=hidden_size))
        hf.trainer_config_finalize(training_args, model, num_training_steps=1000)
        filled = hf.config
        self._hf_ds.unset_hf_deepspeed_config()
        with self._distributed():
            return filled, DeepSpeedConfig(filled)


def make_frameworks():
    """Session helper: (Frameworks, undo) or raises ImportError naming what is missing."""
    import pytest

    missing = missing_packages()
    if missing:
        raise ImportError(f"not installed: {', '.join(missing)}")
    mp = pytest.MonkeyPatch()
    try:
        fw = Frameworks(mp)
    except BaseException:
        mp.undo()
        raise
    return fw, mp.undo

