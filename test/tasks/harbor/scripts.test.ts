import { describe, expect, it } from "vitest";
import { planDockerfile } from "../../../src/tasks/importers/harbor/dockerfile";
import {
  bundleScript,
  fetchesIn,
  joinContinuations,
  PYTEST_GUARD,
  rewriteTestScript,
  rootStepsIn,
} from "../../../src/tasks/importers/harbor/test-script";

describe("Dockerfiles turned into what the sandbox can do", () => {
  it("copies the build context's files to /app, into directories as Docker does", () => {
    const plan = planDockerfile(
      'FROM python:3.13-slim\n# comment\nWORKDIR /app\nCOPY data/ /app/data/\nCOPY ["config.json", "settings.json"]\nADD extra.txt sub/\nCOPY tool.sh /app\nCOPY src/. .\n',
    );
    expect(plan.ok && plan.copies).toEqual([
      { sources: ["data/"], dest: "data", dir: true },
      { sources: ["config.json"], dest: "settings.json", dir: false },
      { sources: ["extra.txt"], dest: "sub", dir: true },
      { sources: ["tool.sh"], dest: "", dir: true },
      { sources: ["src/."], dest: "", dir: true },
    ]);
  });

  it("places copies outside /app with the setup, in the Dockerfile's order among its RUN steps", () => {
    const plan = planDockerfile(
      "FROM a\nWORKDIR /app\nRUN mkdir -p out\nCOPY data /data\nCOPY p.patch /tmp\nRUN cat /data/x\nCOPY enc /protected/enc\n",
    );
    expect(plan.ok && plan.copies).toEqual([
      { sources: ["data"], dest: "/data", dir: false, outside: { beforeStep: 1 } },
      { sources: ["p.patch"], dest: "/tmp", dir: true, outside: { beforeStep: 1 } },
      { sources: ["enc"], dest: "/protected/enc", dir: false, outside: { beforeStep: 2 } },
    ]);
  });

  it("turns package installs into requirements, other RUN steps into setup, and ENV into variables", () => {
    const plan = planDockerfile(
      [
        "FROM python:3.13-slim-bookworm",
        "WORKDIR /app",
        "RUN apt-get update && apt-get install -y --no-install-recommends \\",
        "    git=1:2.39 jq \\",
        "    && rm -rf /var/lib/apt/lists/*",
        "RUN pip install --no-cache-dir numpy==1.26.4 scikit-learn PyYAML && pip install -r requirements.txt",
        'ENV MODE=prod GREETING="two words" \\',
        '    PATH="/app/bin:$PATH"',
        "ENV OLD style value",
        "RUN mkdir -p out && python3 prep.py",
        "USER root",
        "RUN useradd -m builder",
        'CMD ["nginx", "-g", "daemon off;"]',
      ].join("\n"),
      (path) => (path === "requirements.txt" ? "# pinned\nrequests>=2\n-e .\n" : undefined),
    );
    expect(plan).toEqual({
      ok: true,
      copies: [],
      env: {
        MODE: "prod",
        GREETING: "two words",
        PATH: "/app/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        OLD: "style value",
      },
      setup: ["cd /app && mkdir -p out && python3 prep.py", "cd /app && useradd -m builder"],
      requires: {
        debian: ["git", "jq", "python3-numpy", "python3-sklearn", "python3-yaml", "python3-requests"],
        python: ["numpy", "scikit-learn", "pyyaml", "requests"],
        network: [],
        services: ["nginx (CMD at environment/Dockerfile:13)"],
        root: ["RUN useradd … at environment/Dockerfile:12"],
      },
      workdir: "/app",
    });
  });

  it("records fetches as network needs, and skips what the sandbox cannot stand in for", () => {
    const fetch = planDockerfile("FROM ubuntu\nRUN git clone https://example.com/r.git && make -C r\n");
    expect(fetch.ok && fetch.requires.network).toEqual(["RUN git clone … at environment/Dockerfile:2"]);
    const script = planDockerfile(
      "FROM a\nWORKDIR /app\nCOPY setup.sh ./\nRUN bash /app/setup.sh && rm /app/setup.sh\n",
      (path) =>
        path === "setup.sh" ? "apt-get install -y git\ngit clone https://example.com/site.git\n" : undefined,
    );
    expect(script.ok && script.requires.network).toEqual([
      "git clone in setup.sh (RUN at environment/Dockerfile:4)",
    ]);
    expect(script.ok && script.requires.debian).toEqual(["git"]);
    const url = planDockerfile("FROM a\nADD https://example.com/x.tgz /app/\n");
    expect(url.ok && url.requires.network).toEqual(["ADD of a URL at environment/Dockerfile:2"]);
    const reason = (text: string) => {
      const plan = planDockerfile(text);
      return plan.ok ? null : plan.reason;
    };
    expect(reason("FROM a\nCOPY --from=build /out /app/out\n")).toMatch(/copies from another image/);
    expect(reason("FROM a\nCOPY x /etc/nginx/x\n")).toBe(
      "it copies files to /etc/nginx/x, in /etc, which the sandbox shows read-only from the host (COPY at environment/Dockerfile:2)",
    );
    // A WORKDIR outside /app is the task's work directory, unless the host or the sandbox owns the place.
    expect(reason("FROM a\nWORKDIR /srv\n")).toBeNull();
    expect(reason("FROM a\nWORKDIR /usr/src/app\n")).toMatch(/in \/usr, which the sandbox shows read-only/);
    expect(reason("FROM a\nWORKDIR /tmp/work\n")).toMatch(/in \/tmp, which the sandbox mounts itself/);
    const home = planDockerfile("FROM a\nWORKDIR /home/user\nCOPY a.txt .\nCOPY b.txt /app/b.txt\n");
    expect(home.ok && { workspace: home.workspace, copies: home.copies }).toEqual({
      workspace: "/home/user",
      copies: [
        { sources: ["a.txt"], dest: "", dir: true },
        { sources: ["b.txt"], dest: "/app/b.txt", dir: false, outside: { beforeStep: 0 } },
      ],
    });
  });
});

describe("Terminal-Bench test scripts in the sandbox", () => {
  const TB2 = [
    "#!/bin/bash",
    "apt-get update",
    "apt-get install -y curl gcc",
    "curl -LsSf https://astral.sh/uv/0.9.5/install.sh | sh",
    "source $HOME/.local/bin/env",
    "uvx \\",
    "  -p 3.13 \\",
    "  --index https://pypi.org/simple --index-strategy unsafe-best-match \\",
    "  -w pytest==8.4.1 \\",
    "  -w pytest-json-ctrf==0.3.5 \\",
    "  -w numpy==2.3.1 \\",
    "  pytest --ctrf /logs/verifier/ctrf.json /tests/test_outputs.py -rA",
    "if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi",
  ].join("\n");

  it("joins continued lines, drops the installs as requirements, and runs the machine's pytest behind a guard", () => {
    expect(joinContinuations("a \\\n  b \\\n  c\nd").map((line) => line.text)).toEqual(["a  b  c", "d"]);
    const rewritten = rewriteTestScript(TB2);
    expect(rewritten.script).toBe(
      [
        "#!/bin/bash",
        PYTEST_GUARD,
        "env PYTHONSAFEPATH=1 python3 -m pytest /tests/test_outputs.py -rA",
        "if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi",
      ].join("\n"),
    );
    expect(rewritten.pytest).toBe(true);
    expect([...new Set(rewritten.requires.debian)].sort()).toEqual([
      "gcc",
      "python3",
      "python3-numpy",
      "python3-pytest",
    ]);
    expect(rewritten.requires.network).toEqual([]);
  });

  it("never doubles python -m pytest, and rewrites a bare pytest", () => {
    expect(rewriteTestScript("#!/bin/bash\ncd /app && python -m pytest -q t\n").script).toBe(
      `#!/bin/bash\n${PYTEST_GUARD}\ncd /app && python -m pytest -q t\n`,
    );
    expect(rewriteTestScript("#!/bin/bash\ncd /app && pytest -q tests\n").script).toBe(
      `#!/bin/bash\n${PYTEST_GUARD}\ncd /app && env PYTHONSAFEPATH=1 python3 -m pytest -q tests\n`,
    );
  });

  it("reports other network use as a need, and test-time pip installs as Python requirements", () => {
    const fetch = rewriteTestScript("#!/bin/bash\ncurl -s http://example.com/check\n");
    expect(fetch.requires.network).toEqual(["curl at tests/test.sh:2"]);
    const pip = rewriteTestScript("#!/bin/bash\npip install requests==2.32 && python3 check.py\n");
    expect(pip.requires.python).toEqual(["requests"]);
    expect(pip.script).toBe("#!/bin/bash\npython3 check.py\n");
  });

  // Each case is a published task's line that was once taken for what it is not (audited on the 89 TB2 tasks).
  it("takes no heredoc body, printed text, local git source or loopback request for a need", () => {
    const proto = rewriteTestScript(
      "#!/bin/bash\ncat > kv.proto << EOF\nservice KVStore {\n  rpc Get (A) returns (B) {}\n}\nEOF\npython3 server.py &\n",
      "solution/solve.sh",
    );
    expect(proto.requires.root).toEqual([]);
    expect(proto.script).toContain("service KVStore {");
    const printed = rewriteTestScript(
      '#!/bin/bash\necho "  git clone git@HOST:/git/server"\nprintf "curl http://x\\n"\n',
    );
    expect(printed.requires.network).toEqual([]);
    const bundles = rewriteTestScript(
      "#!/bin/bash\ngit fetch /app/bundle1.bundle HEAD:branch1\ngit clone /srv/repo.git work\ncurl -s http://localhost:8080 || true\n",
      "solution/solve.sh",
    );
    expect(bundles.requires.network).toEqual([]);
    const remote = rewriteTestScript(
      "#!/bin/bash\ngit clone https://github.com/o/r.git\ngit clone git@github.com:o/r.git\ngit pull\ncurl -L -o w.pt http://127.0.0.1.example.com/w\n",
      "solution/solve.sh",
    );
    expect(remote.requires.network).toEqual([
      "git clone at solution/solve.sh:2",
      "git clone at solution/solve.sh:3",
      "git pull at solution/solve.sh:4",
      "curl at solution/solve.sh:5",
    ]);
    const purge = planDockerfile("FROM a\nRUN apt-get update && apt-get purge -y povray* || true\n");
    expect(purge.ok && purge.requires.network).toEqual([]);
  });

  it("finds a chroot that a test's own code runs (path-tracing), apart from comments", () => {
    const test =
      '# we chroot /jail below\nrun(["sh", "-c", "mkdir /jail; cp /app/image /jail; chroot /jail /image"])\n';
    expect(rootStepsIn(test, "tests/test_outputs.py")).toEqual(["chroot in tests/test_outputs.py:2"]);
    expect(rootStepsIn("os.chroot is not used here\n", "t.py")).toEqual([]);
  });

  it("keeps a line that only sets a variable (llm-inference-batching-scheduler's TARGET_DIR=…)", () => {
    const script =
      '#!/bin/bash\nset -euo pipefail\nTARGET_DIR="/app/out"\nDEBIAN_FRONTEND=noninteractive apt-get install -y jq\nmkdir -p "$TARGET_DIR"\n';
    expect(rewriteTestScript(script, "solution/solve.sh").script).toBe(
      '#!/bin/bash\nset -euo pipefail\nTARGET_DIR="/app/out"\nmkdir -p "$TARGET_DIR"\n',
    );
  });

  it("finds a test file's download (filter-js-from-html), never a request to the loopback", () => {
    const download = [
      "import urllib.request",
      "def fetch_vectors(tmp):",
      '    url = "https://github.com/owner/testbed/archive/refs/heads/master.zip"',
      "    urllib.request.urlretrieve(url, tmp)",
    ].join("\n");
    expect(fetchesIn(download, "tests/test_outputs.py")).toEqual([
      "a fetch of https://github.com/… in tests/test_outputs.py:3",
    ]);
    expect(
      fetchesIn('requests.get("http://0.0.0.0:5000")\nrequests.get("http://localhost:8000/x")', "t.py"),
    ).toEqual([]);
    expect(fetchesIn('DOCS = "https://example.com/spec"  # only a reference', "t.py")).toEqual([]);
    // A hub download names no URL (pytorch-model-cli's MNIST, count-dataset-tokens' data set).
    expect(fetchesIn("ds = datasets.MNIST(root, train=True,\n    download=True)\n", "tests/t.py")).toEqual([
      "a download (download=True) in tests/t.py:2",
    ]);
    expect(fetchesIn('load_dataset("org/data", split="train")', "solution/s.py")).toEqual([
      "a download (load_dataset(…)) in solution/s.py:1",
    ]);
    expect(fetchesIn('load_dataset("/app/data")\n# download=True', "s.py")).toEqual([]);
  });

  it("bundles sibling files into a directory named like the mount, and points the script at them", () => {
    expect(bundleScript("#!/bin/bash\necho hi\n", new Map(), "/tests")).toBe("#!/bin/bash\necho hi\n");
    const bundled = bundleScript(
      "#!/bin/bash\ncmp /app/out /tests/expected.txt && ls /app/tests\n",
      new Map([
        ["expected.txt", Buffer.from("see /tests/data\n")],
        ["blob.bin", Buffer.from([0, 1, 2])],
      ]),
      "/tests",
    );
    expect(bundled).toContain(
      "cat > '/tmp/hsearch/tests/expected.txt' <<'HSEARCH_FILE'\nsee /tmp/hsearch/tests/data\nHSEARCH_FILE",
    );
    expect(bundled).toContain("base64 -d > '/tmp/hsearch/tests/blob.bin' <<'HSEARCH_B64'\nAAEC\nHSEARCH_B64");
    expect(bundled).toContain("cmp /app/out /tmp/hsearch/tests/expected.txt && ls /app/tests");
    expect(bundled.endsWith("cd /app 2>/dev/null; exec bash /tmp/hsearch/tests/__main__.sh\n")).toBe(true);
  });
});
