import { describe, expect, it } from "vitest";
import { planDockerfile } from "../../../src/tasks/harbor/dockerfile";
import { bundleScript, PYTEST_GUARD, rewriteTestScript } from "../../../src/tasks/harbor/test-script";

describe("Dockerfiles the sandbox can stand in for", () => {
  it("copies the build context's files to /app", () => {
    const plan = planDockerfile(
      'FROM python:3.13-slim\n# comment\nWORKDIR /app\nCOPY data/ /app/data/\nCOPY ["config.json", "settings.json"]\nADD extra.txt sub/\n',
    );
    expect(plan).toEqual({
      ok: true,
      copies: [
        { sources: ["data/"], dest: "data", dir: true },
        { sources: ["config.json"], dest: "settings.json", dir: false },
        { sources: ["extra.txt"], dest: "sub", dir: true },
      ],
    });
  });

  it("skips, with the reason and line, what needs an image build, network or a container setting", () => {
    const reason = (text: string) => {
      const plan = planDockerfile(text);
      return plan.ok ? null : plan.reason;
    };
    expect(reason("FROM ubuntu\nRUN apt-get update && \\\n  apt-get install -y jq\n")).toBe(
      "the environment needs network and a Docker image build (RUN apt-get … at environment/Dockerfile:2)",
    );
    expect(reason("FROM ubuntu\nRUN mkdir -p /app/x\n")).toBe(
      "the environment needs a Docker image build (RUN at environment/Dockerfile:2)",
    );
    expect(reason("FROM a\nADD https://example.com/x.tgz /app/\n")).toMatch(/needs network \(ADD of a URL/);
    expect(reason("FROM a\nCOPY --from=build /out /app/out\n")).toMatch(/copies from another image/);
    expect(reason("FROM a\nCOPY x /opt/x\n")).toMatch(/outside \/app/);
    expect(reason("FROM a\nWORKDIR /srv\n")).toMatch(/outside \/app/);
    expect(reason('FROM a\nCMD ["python", "server.py"]\n')).toMatch(/needs CMD/);
    expect(reason("FROM a\nENV MODE=prod\n")).toMatch(/needs ENV/);
  });
});

describe("Terminal-Bench test scripts in the sandbox", () => {
  it("drops the uv and pytest installs and runs the machine's pytest behind a guard", () => {
    const script = [
      "#!/bin/bash",
      "apt-get update",
      "apt-get install -y curl",
      "curl -LsSf https://astral.sh/uv/0.9.5/install.sh | sh",
      "source $HOME/.local/bin/env",
      "uvx -p 3.13 -w pytest==8.4.1 -w pytest-json-ctrf==0.3.5 pytest --ctrf /logs/verifier/ctrf.json /tests/test_outputs.py -rA",
      "if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi",
    ].join("\n");
    const rewritten = rewriteTestScript(script);
    expect(rewritten).toEqual({
      ok: true,
      script: [
        "#!/bin/bash",
        PYTEST_GUARD,
        "python3 -m pytest /tests/test_outputs.py -rA",
        "if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi",
      ].join("\n"),
      needs: { python: true, pytest: true },
    });
    expect(rewriteTestScript("#!/bin/bash\ncd /app && pytest -q tests\n")).toMatchObject({
      ok: true,
      script: `#!/bin/bash\n${PYTEST_GUARD}\ncd /app && python3 -m pytest -q tests\n`,
    });
  });

  it("refuses tests that need network for anything else", () => {
    expect(rewriteTestScript("#!/bin/bash\napt-get install -y jq\n")).toEqual({
      ok: false,
      reason: "the tests need network (tests/test.sh:2: apt-get install -y jq)",
    });
    expect(rewriteTestScript("#!/bin/bash\ncurl -s http://example.com/check\n")).toMatchObject({ ok: false });
    expect(
      rewriteTestScript("#!/bin/bash\n# curl is not used\necho 1 > /logs/verifier/reward.txt\n"),
    ).toMatchObject({
      ok: true,
      needs: { python: false, pytest: false },
    });
  });

  it("bundles sibling files into /tmp and points the script at them", () => {
    expect(bundleScript("#!/bin/bash\necho hi\n", new Map(), "/tests")).toBe("#!/bin/bash\necho hi\n");
    const bundled = bundleScript(
      "#!/bin/bash\ncmp /app/out /tests/expected.txt\n",
      new Map([
        ["expected.txt", Buffer.from("see /tests/data\n")],
        ["blob.bin", Buffer.from([0, 1, 2])],
      ]),
      "/tests",
    );
    expect(bundled).toContain(
      "cat > '/tmp/hsearch-tests/expected.txt' <<'HSEARCH_FILE'\nsee /tmp/hsearch-tests/data\nHSEARCH_FILE",
    );
    expect(bundled).toContain("base64 -d > '/tmp/hsearch-tests/blob.bin' <<'HSEARCH_B64'\nAAEC\nHSEARCH_B64");
    expect(bundled).toContain("cmp /app/out /tmp/hsearch-tests/expected.txt");
    expect(bundled.endsWith("cd /app && exec bash /tmp/hsearch-tests/__main__.sh\n")).toBe(true);
  });
});
