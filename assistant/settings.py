"""One settings class for every front end. Environment prefix: ``SIZING_``.

A plain pydantic model that reads its own environment variables (a dozen lines, below) rather than a
pydantic-settings class: importing pydantic-settings (asyncio, dotenv, argparse, its CLI parser) cost
a third of `sizing call`'s start-up, which agents pay on every tool call."""

import os
from pathlib import Path
from typing import Any

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, SecretStr, field_validator

PACKAGE_DIR = Path(__file__).resolve().parent
PROJECT_ROOT = PACKAGE_DIR.parent
# An installed wheel carries knowledge/ and prompts/ inside the package (pyproject's force-include);
# a checkout (editable install, tests) has them at the top level.
BUNDLED_DATA = PACKAGE_DIR / "_data"


def data_dir(name: str) -> Path:
    """``knowledge`` or ``prompts``: the copy inside the installed package, else the checkout's folder."""
    packaged = BUNDLED_DATA / name
    return packaged if packaged.is_dir() else PROJECT_ROOT / name


ENV_PREFIX = "SIZING_"


class Settings(BaseModel):
    """Every knob of the assistant. Each field reads ``SIZING_<NAME>`` (Slack fields also read
    Slack's usual variable names); keyword arguments override the environment."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True, validate_default=True)

    def __init__(self, **values: Any) -> None:
        super().__init__(**{**_from_environment(type(self), values), **values})

    knowledge_dir: Path = Field(
        default_factory=lambda: data_dir("knowledge"),
        description="Folder with tables/, catalog/ and notes/ that the knowledge base is built from.",
    )
    cache_dir: Path | None = Field(
        None,
        description="Where the built DuckDB file is cached (keyed by a hash of knowledge/). "
        "Default: $XDG_CACHE_HOME/sizing or ~/.cache/sizing, falling back to the temp dir.",
    )
    prompts_dir: Path = Field(default_factory=lambda: data_dir("prompts"), description="Folder with the prompt texts.")

    llm: str = Field(
        "offline",
        description="Chat model: 'offline' (deterministic planner, default), any init_chat_model "
        "provider string such as 'openai:gpt-4o-mini', 'anthropic:claude-sonnet-4-5', 'ollama:qwen2.5', "
        "or 'openai:MODEL' together with llm_base_url for an OpenAI-compatible endpoint (vLLM).",
    )
    llm_base_url: str | None = Field(None, description="Base URL of an OpenAI-compatible endpoint, e.g. http://host:8000/v1.")
    llm_api_key: SecretStr | None = Field(None, description="API key for the LLM endpoint (falls back to the provider's own variable).")
    llm_timeout_s: float = Field(
        5.0, gt=0, description="Longest wait for the next piece of an LLM reply (replies are streamed), seconds: a stalled "
        "endpoint is given up after this. Raise it for a local model on CPU, whose first token comes after the whole prompt is read.",
    )
    llm_connect_timeout_s: float = Field(3.0, gt=0, description="Time to connect to the LLM endpoint, seconds (a dead one fails in this).")
    llm_budget_s: float = Field(
        60.0, gt=0, description="Wall-clock budget of one LLM answer, all steps included, seconds; past it the offline planner answers. "
        "REST /v1/ask keeps it under request_timeout_s.",
    )
    llm_max_tokens: int = Field(1024, ge=16, description="max_tokens sent with every LLM request (a looping model stops there).")
    llm_max_steps: int = Field(6, ge=1, description="Model calls per answer (each tool round is one); past it the offline planner answers.")
    llm_max_corrections: int = Field(
        2, ge=0, description="Tool errors and unreadable replies (bad arguments, unknown tools, empty replies, broken tool-call "
        "text) sent back to the model per answer before the offline planner answers instead.",
    )
    llm_max_reply_chars: int = Field(20_000, ge=100, description="Longest LLM reply accepted, characters; a longer one is cut off while it streams.")
    llm_fallback: bool = Field(
        True, description="When the LLM endpoint fails, answer with the offline planner (and say so) instead of an error."
    )
    grounding_check: bool = Field(
        True, description="Check every number and vendor support claim in an LLM answer against this turn's tool results, the "
        "question and the conversation; an answer that fails is replaced by the offline planner's (with a notice naming the "
        "figures) or, where the planner cannot answer, shown with those figures marked.",
    )

    max_question_chars: int = Field(20_000, description="Longest question accepted; longer input is cut with a notice.")
    max_body_bytes: int = Field(1_000_000, description="Largest HTTP request body the API accepts, bytes.")
    request_timeout_s: float = Field(30.0, description="Time limit for one API request, seconds.")
    api_keys: list[str] = Field(
        default_factory=list,
        description="Bearer keys for the REST/MCP API (JSON list or comma-separated). Empty: no auth.",
    )
    tool_cache_size: int = Field(
        1024, ge=0, description="Tool results the API remembers per process (tools are pure over a read-only "
        "knowledge base); 0 turns the cache off.",
    )

    body_timeout_s: float = Field(
        10.0, gt=0, description="Time a client has to send a whole request body, seconds; slower requests get 408.",
    )
    allowed_hosts: list[str] = Field(
        default_factory=list, description="Host headers the API, MCP and Slack servers answer (comma-separated; '*': any). "
        "Empty: loopback names only when bound to loopback, any otherwise.",
    )
    cors_origins: list[str] = Field(
        default_factory=list, description="Browser origins allowed to call the API and MCP cross-site, with CORS headers "
        "(comma-separated, e.g. https://app.example.com; '*': any). Empty: same origin only.",
    )

    @field_validator("api_keys", "allowed_hosts", "cors_origins", mode="before")
    @classmethod
    def _split_keys(cls, v: object) -> object:
        # Environment values arrive as text: a JSON list or comma-separated keys.
        if isinstance(v, str):
            import json

            v = json.loads(v) if v.strip().startswith("[") else v.split(",")
        return [k.strip() for k in v if str(k).strip()] if isinstance(v, list) else v

    host: str = Field("127.0.0.1", description="Host the web chat and API bind to.")
    port: int = Field(7860, description="Port of the web chat (the API default is 8000).")

    slack_bot_token: SecretStr | None = Field(
        None, validation_alias=AliasChoices("SIZING_SLACK_BOT_TOKEN", "SLACK_BOT_TOKEN"), description="Slack bot token (xoxb-...)."
    )
    slack_signing_secret: SecretStr | None = Field(
        None,
        validation_alias=AliasChoices("SIZING_SLACK_SIGNING_SECRET", "SLACK_SIGNING_SECRET"),
        description="Slack signing secret, used to verify Events API requests.",
    )
    slack_app_token: SecretStr | None = Field(
        None,
        validation_alias=AliasChoices("SIZING_SLACK_APP_TOKEN", "SLACK_APP_TOKEN"),
        description="Slack app-level token (xapp-...); when set, `sizing slack` uses Socket Mode.",
    )
    slack_api_url: str | None = Field(None, description="Override of Slack's Web API base URL (tests point it at a local stand-in).")
    redis_url: str | None = Field(
        None, description="Redis the Slack bridge keeps its shared state in (accepted and answered events, the queue of "
        "questions, threads it answers in), e.g. redis://redis:6379/0. Required for more than one Slack replica. "
        "Empty: a SQLite file (slack_state_file), which processes on one host share.",
    )
    slack_state_file: Path | None = Field(
        None, description="SQLite file of the Slack bridge's state when redis_url is empty. Default: slack-state.sqlite "
        "beside the knowledge-base cache file.",
    )
    slack_lease_s: float = Field(
        30.0, gt=0, description="Seconds a Slack question stays with the worker answering it without a sign of life "
        "(renewed while it works); after a crash another worker or replica takes it then.",
    )
    slack_drain_s: float = Field(
        20.0, ge=0, description="On SIGTERM, seconds the Slack bridge waits for questions in progress; the rest go back "
        "to the queue for another replica or the next start.",
    )

    @classmethod
    def documentation(cls) -> list[tuple[str, str, str]]:
        """(environment variable(s), default, description) for every field, for `sizing settings` and the README."""
        out = []
        for name, f in cls.model_fields.items():
            env = " / ".join(env_names(name, f.validation_alias))
            default = f.get_default(call_default_factory=True)
            if isinstance(default, Path):
                default = _shown_path(default)
            out.append((env, "" if default is None else str(default), f.description or ""))
        return out

    def resolved_cache_dir(self) -> Path:
        """The cache folder: the setting, else the user's cache folder, else the temp dir."""
        import tempfile

        if self.cache_dir:
            return self.cache_dir
        base = os.environ.get("XDG_CACHE_HOME") or (Path.home() / ".cache" if Path.home().exists() else None)
        return Path(base) / "sizing" if base else Path(tempfile.gettempdir()) / "sizing-cache"


def env_names(name: str, alias: object) -> list[str]:
    """The environment variables a field reads, first match wins: its alias choices, else SIZING_<NAME>."""
    if isinstance(alias, AliasChoices):
        return [str(choice) for choice in alias.choices]
    return [ENV_PREFIX + name.upper()]


def _from_environment(cls: type[Settings], given: dict[str, Any]) -> dict[str, str]:
    """Field values from the environment (names matched case-insensitively), except the fields in ``given``."""
    env = {k.upper(): v for k, v in os.environ.items()}
    out = {}
    for name, f in cls.model_fields.items():
        names = env_names(name, f.validation_alias)
        if name in given or any(n in given for n in names):
            continue
        found = next((env[n.upper()] for n in names if n.upper() in env), None)
        if found is not None:
            out[name] = found
    return out


def _shown_path(path: Path) -> str:
    """A default path as the README shows it: relative to the checkout, or to the installed package."""
    if path.is_relative_to(BUNDLED_DATA):
        return "<installed package>/_data/" + str(path.relative_to(BUNDLED_DATA))
    if path.is_relative_to(PROJECT_ROOT):
        return "./" + str(path.relative_to(PROJECT_ROOT))
    return str(path)
