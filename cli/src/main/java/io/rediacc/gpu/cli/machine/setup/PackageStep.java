package io.rediacc.gpu.cli.machine.setup;

import io.rediacc.gpu.cli.failure.ExitCodes;
import io.rediacc.gpu.cli.failure.Failure;
import io.rediacc.gpu.cli.ssh.Ssh;

import java.util.ArrayList;
import java.util.List;

/**
 * Installs the {@code rediacc-gpu-node} .deb the build made, sent over the same SSH connection.
 * <ul>
 * <li>A real machine ({@code root: /}): {@code apt-get install ./rediacc-gpu-node_*.deb} (its
 * dependencies, Java among them, come from the machine's own repositories; {@code dpkg -i} where
 * there is no apt), keeping the operator's edited conffiles. Maintainer scripts run: the gate's
 * user, its directories.</li>
 * <li>A simulated machine (a directory standing for {@code /}, as the tests and {@code ./fleet up}
 * use): the same .deb unpacked into that directory with {@code dpkg-deb -x}, never installed into
 * the SSH host's own {@code /}; what was unpacked is recorded where dpkg would record it
 * ({@code <root>/var/lib/dpkg/info/rediacc-gpu-node.{list,md5sums}}, plus {@code .version}), files of
 * the previous version are removed and existing conffiles kept, as dpkg does. No maintainer script
 * runs (they would change the host's users and /run).</li>
 * </ul>
 * Idempotent: {@code unchanged} when the installed version is the .deb's and dpkg's record of its
 * files ({@code md5sums}) is the .deb's, so even two builds of one SNAPSHOT version are told apart.
 */
final class PackageStep implements SetupStep {

    private final DebPackage deb;

    PackageStep(DebPackage deb) {
        this.deb = deb;
    }

    @Override
    public void run(SetupRun run) {
        Ssh ssh = run.ssh();
        String info = run.hostPath("/var/lib/dpkg/info/") + deb.name();
        String status = run.simulated()
                ? "cat " + Ssh.quote(info + ".version") + " 2>/dev/null || echo 'not-installed -'"
                : "dpkg-query -W -f='${db:Status-Status} ${Version}\\n' " + deb.name() + " 2>/dev/null || echo 'not-installed -'";
        List<String> answer = new ArrayList<>();
        ssh.run(status + "; sha256sum " + Ssh.quote(info + ".md5sums") + " 2>/dev/null || echo -", answer::add);
        String[] installed = (answer.isEmpty() ? "not-installed -" : answer.get(0)).strip().split("\\s+", 2);
        String installedDigest = answer.size() < 2 ? "-" : answer.get(1).strip().split("\\s+")[0];
        boolean sameVersion = installed.length == 2 && installed[0].equals("installed") && installed[1].equals(deb.version());
        String what = deb.name() + " " + deb.version() + " (files " + deb.shortDigest() + ")";
        if (sameVersion && installedDigest.equals(deb.md5sumsDigest())) {
            run.progress("package: unchanged - " + what + " is installed" + (run.simulated() ? " under " + run.root() : ""));
            return;
        }
        String before = installed.length == 2 && !installed[0].equals("not-installed") ? installed[1] : null;
        String script = run.simulated() ? unpackScript(run) : installScript(sameVersion);
        List<String> output = new ArrayList<>();
        Ssh.Result r = ssh.run(new ProcessBuilder(ssh.command(script)).redirectInput(deb.file().toFile()), output::add);
        if (!r.ok()) {
            throw new Failure(ExitCodes.MACHINE_FAILED, "package: failed - installing " + deb.file().getFileName() + " on "
                    + ssh.target() + " failed (exit " + r.exitCode() + "): "
                    + SetupRun.lastLines(String.join("\n", output) + "\n" + r.stderr()));
        }
        run.progress("package: changed - " + (before == null ? "installed " : before.equals(deb.version()) ? "reinstalled (another build) "
                : "upgraded from " + before + " to ") + what + (run.simulated()
                ? " unpacked under " + run.root() + " (dpkg-deb -x; a simulated machine)"
                : " with " + (output.stream().anyMatch(l -> l.startsWith("@dpkg")) ? "dpkg -i" : "apt-get install")));
    }

    /** A real machine: apt-get installs the .deb (and what it depends on); dpkg -i where there is no apt. */
    private String installScript(boolean sameVersion) {
        String file = Ssh.quote(deb.canonicalFileName());
        return String.join("\n",
                "set -e",
                "command -v dpkg >/dev/null 2>&1 || { echo 'this machine has no dpkg; " + deb.name()
                        + " is a Debian package (Debian, Ubuntu and their kin)' >&2; exit 3; }",
                // readable by apt's sandbox user (_apt), removed whatever happens
                "d=$(mktemp -d /tmp/rediacc-gpu-node.XXXXXX); trap 'rm -rf \"$d\"' EXIT; chmod 755 \"$d\"",
                "cat > \"$d\"/" + file + "; chmod 644 \"$d\"/" + file,
                "export DEBIAN_FRONTEND=noninteractive",
                "if command -v apt-get >/dev/null 2>&1; then",
                "  apt-get install -y -q" + (sameVersion ? " --reinstall" : "")
                        + " -o Dpkg::Options::=--force-confold \"$d\"/" + file,
                "else",
                "  echo @dpkg; dpkg -i --force-confold \"$d\"/" + file,
                "fi");
    }

    /** A simulated machine: the .deb unpacked into its root, recorded where dpkg records it; the host's / untouched. */
    private String unpackScript(SetupRun run) {
        String n = deb.name();
        return String.join("\n",
                "set -e",
                "R=" + Ssh.quote(run.root().replaceAll("/+$", "")),
                "[ -d \"$R\" ] || { echo \"the machine root $R does not exist\" >&2; exit 3; }",
                "d=$(mktemp -d); trap 'rm -rf \"$d\"' EXIT",
                "cat > \"$d/p.deb\"",
                "dpkg-deb -x \"$d/p.deb\" \"$d/data\"",
                "dpkg-deb -e \"$d/p.deb\" \"$d/control\"",
                "touch \"$d/control/conffiles\"",
                "(cd \"$d/data\" && find . -mindepth 1 | sed 's|^\\.||') > \"$d/list\"",
                "info=\"$R/var/lib/dpkg/info\"; mkdir -p \"$info\"",
                // the previous version's files go (not its directories, not the operator's conffiles)
                "if [ -f \"$info/" + n + ".list\" ]; then",
                "  while IFS= read -r f; do",
                "    if grep -qxF \"$f\" \"$d/control/conffiles\"; then continue; fi",
                "    if [ -f \"$R$f\" ] || [ -L \"$R$f\" ]; then rm -f \"$R$f\"; fi",
                "  done < \"$info/" + n + ".list\"",
                "fi",
                // conffiles the machine already has stay as they are (dpkg --force-confold)
                "while IFS= read -r f; do",
                "  if [ -n \"$f\" ] && [ -e \"$R$f\" ]; then rm -f \"$d/data$f\"; fi",
                "done < \"$d/control/conffiles\"",
                "cp -a \"$d/data/.\" \"$R/\"",
                "cp \"$d/list\" \"$info/" + n + ".list\"",
                "cp \"$d/control/md5sums\" \"$info/" + n + ".md5sums\"",
                "echo " + Ssh.quote("installed " + deb.version()) + " > \"$info/" + n + ".version\"");
    }
}
