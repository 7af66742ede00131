/** The programs a solution's script runs by its own text: what a survey without a trace knows the solution calls. */
import { describe, expect, it } from "vitest";
import { scriptPrograms } from "../../../src/tasks/generators/pair/script-programs";

describe("the programs a script runs", () => {
  it("takes each simple command's program, through prefixes, assignments, su -c and a subshell", () => {
    const script = [
      "#!/bin/bash",
      "DEBIAN_FRONTEND=noninteractive apt-get install -y git nginx",
      'su - git -c "git init --bare /git/server"',
      "sudo /usr/sbin/sshd && service nginx start || echo failed",
      'count=$(wc -l < /data/words.txt); printf "%s" "$count" | tee out',
      "if ! postconf -e x; then exit 1; fi",
      "for i in {1..15}; do sleep 1; done",
    ].join("\n");
    expect(scriptPrograms(script)).toEqual([
      "/usr/sbin/sshd",
      "apt-get",
      "echo",
      "git",
      "postconf",
      "printf",
      "service",
      "sleep",
      "su",
      "tee",
      "wc",
    ]);
  });

  it("takes no program from arithmetic or from a function the script defines", () => {
    const script = [
      "count_in_range() {",
      "    count=0",
      "    count=$((count + c))",
      '    echo "$count"',
      "}",
      'total=$(count_in_range "$x")',
      "(( total > 0 )) && wc -l out",
    ].join("\n");
    expect(scriptPrograms(script)).toEqual(["echo", "wc"]);
  });

  it("reads no program from a here-document's body or a comment", () => {
    const script = [
      "cat > /etc/nginx/conf.d/site.conf << 'EOF'",
      "server {",
      "    listen 8080;",
      "    root /var/www/html;",
      "}",
      "EOF",
      "# nginx -s reload",
      "nginx",
    ].join("\n");
    expect(scriptPrograms(script)).toEqual(["cat", "nginx"]);
  });
});
