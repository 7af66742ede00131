"""hsearch's selected harness as a Harbor installed agent.

Harbor (https://github.com/laude-institute/harbor) starts an installed agent in each task's container in two steps:
``setup`` uploads and runs the agent's install script there, then ``run`` executes the commands
``create_run_agent_commands`` returns, with the task's instruction, and afterwards ``populate_context_post_run``
reports what the agent spent. This class follows that documented ``BaseInstalledAgent`` interface: its install
script is ``install.sh`` (offline from the bundle ``pack-bundle.mjs`` makes, uploaded beside it), and its one run
command is ``hsearch agent`` with the harness it is given, in the task's work directory, writing its trajectory as
ATIF to ``/logs/agent/trajectory.json`` (the directory Harbor keeps as the trial's ``agent/``).

    harbor run -d terminal-bench@2.0 -m openai/gpt-5-mini \\
      --agent-import-path hsearch_agent:HsearchAgent \\
      --agent-kwarg harness_dir=/abs/path/to/selected-harness \\
      --agent-kwarg bundle=/abs/path/to/hsearch-bundle.tgz

(with this directory on PYTHONPATH). The model is Harbor's ``provider/name``, passed to hsearch as
``provider:name``; the provider's key and base URL variables are passed from Harbor's environment.
"""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path
from typing import Any

from harbor.agents.installed.base import BaseInstalledAgent, ExecInput
from harbor.environments.base import BaseEnvironment
from harbor.models.agent.context import AgentContext

HERE = Path(__file__).resolve().parent
AGENT_DIR = "/installed-agent"
LOGS_DIR = "/logs/agent"
#: Variables passed to ``hsearch agent`` when Harbor's process has them: the providers' keys and endpoints.
PASSED_VARIABLES = (
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "HSEARCH_PRICES",
)
#: ``hsearch agent``'s exit statuses that are the agent's own outcome, not a failure to run it.
FINISHED = {0: "done", 3: "deferred", 4: "out_of_steps"}


class HsearchAgent(BaseInstalledAgent):
    SUPPORTS_ATIF: bool = True

    def __init__(
        self,
        logs_dir: Path,
        harness_dir: str | None = None,
        bundle: str | None = None,
        workdir: str = "/app",
        max_steps: int | str | None = None,
        network: bool | str = True,
        seed: int | str | None = None,
        *args: Any,
        **kwargs: Any,
    ) -> None:
        super().__init__(logs_dir, *args, **kwargs)
        if harness_dir is None or not Path(harness_dir, "harness.yaml").is_file():
            raise ValueError(f"harness_dir must be a harness directory (with harness.yaml), got {harness_dir!r}")
        self._harness_dir = Path(harness_dir).resolve()
        self._bundle = Path(bundle).resolve() if bundle else None
        if self._bundle is not None and not self._bundle.is_file():
            raise ValueError(f"bundle {bundle!r} is not a file (make it with pack-bundle.mjs)")
        self._workdir = workdir
        self._max_steps = int(max_steps) if max_steps not in (None, "") else None
        self._network = str(network).lower() not in ("false", "0", "no")
        self._seed = int(seed) if seed not in (None, "") else None

    @staticmethod
    def name() -> str:
        return "hsearch"

    @property
    def _install_agent_template_path(self) -> Path:
        return HERE / "install.sh"

    async def setup(self, environment: BaseEnvironment) -> None:
        # The harness and the offline bundle go to the container before Harbor runs the install script.
        await environment.upload_dir(self._harness_dir, f"{AGENT_DIR}/harness")
        if self._bundle is not None:
            await environment.upload_file(self._bundle, f"{AGENT_DIR}/hsearch-bundle.tgz")
        await super().setup(environment)

    def hsearch_model(self) -> str:
        """Harbor's ``provider/name`` as hsearch's ``provider:name``."""
        model = self.model_name or ""
        provider, sep, rest = model.partition("/")
        if not sep or not provider or not rest:
            raise ValueError(f"model_name must be provider/name (e.g. openai/gpt-5-mini), got {model!r}")
        return f"{provider}:{rest}"

    def create_run_agent_commands(self, instruction: str) -> list[ExecInput]:
        argv = [
            "hsearch",
            "agent",
            "--harness",
            f"{AGENT_DIR}/harness",
            "--model",
            self.hsearch_model(),
            "--workdir",
            self._workdir,
            "--out",
            LOGS_DIR,
        ]
        if self._max_steps is not None:
            argv += ["--max-steps", str(self._max_steps)]
        if not self._network:
            argv.append("--no-network")
        if self._seed is not None:
            argv += ["--seed", str(self._seed)]
        argv.append(instruction)
        # The exit status is kept for populate_context_post_run; done, deferred and out of steps are outcomes the
        # verifier judges, so only a failure to run (model error, bad input, crash) fails the command.
        command = (
            f"mkdir -p {LOGS_DIR}; {shlex.join(argv)} 2>&1 | tee {LOGS_DIR}/hsearch.txt; "
            f"status=${{PIPESTATUS[0]}}; echo $status > {LOGS_DIR}/hsearch-exit-code; "
            'case $status in 0|3|4) exit 0 ;; *) exit "$status" ;; esac'
        )
        env = {name: os.environ[name] for name in PASSED_VARIABLES if os.environ.get(name)}
        return [ExecInput(command=command, cwd=self._workdir, env=env or None)]

    def populate_context_post_run(self, context: AgentContext) -> None:
        trajectory_file = Path(self.logs_dir) / "trajectory.json"
        if not trajectory_file.is_file():
            return
        trajectory = json.loads(trajectory_file.read_text())
        metrics = trajectory.get("final_metrics") or {}
        context.n_input_tokens = metrics.get("total_prompt_tokens")
        context.n_output_tokens = metrics.get("total_completion_tokens")
        context.cost_usd = metrics.get("total_cost_usd")
        exit_file = Path(self.logs_dir) / "hsearch-exit-code"
        status = int(exit_file.read_text().strip()) if exit_file.is_file() else None
        context.metadata = {
            "hsearch_status": FINISHED.get(status, "error") if status is not None else None,
            "hsearch_exit_code": status,
            "end": (trajectory.get("extra") or {}).get("end"),
        }
