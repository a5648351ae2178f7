package io.rediacc.gpu.cli.machine.setup;

import com.fasterxml.jackson.databind.JsonNode;
import io.rediacc.gpu.cli.failure.ExitCodes;
import io.rediacc.gpu.cli.failure.Failure;
import io.rediacc.gpu.cli.ssh.Ssh;

/**
 * grant-service's public key onto the machine, where docker-gate verifies every grant snapshot with
 * it (a gate without it does not start). Unchanged when the machine already has this key.
 */
final class GrantsKeyStep implements SetupStep {

    /** Where docker-gate reads grant-service's public key by default (gate.grants-key). */
    static final String GRANTS_KEY = "/etc/rediacc/gate/grant-service-key.pub";

    @Override
    public void run(SetupRun run) {
        JsonNode key = run.session().grants().signingKey().orFail().json();
        String pem = key.path("publicKey").asText();
        if (!pem.startsWith("-----BEGIN PUBLIC KEY-----") || !pem.matches("[A-Za-z0-9+/=\\n -]+")) {
            throw new Failure(ExitCodes.ERROR, "grant-service answered no usable signing key: " + SetupRun.lastLines(pem));
        }
        String file = run.hostPath(GRANTS_KEY);
        StringBuilder there = new StringBuilder();
        run.ssh().run("cat " + Ssh.quote(file) + " 2>/dev/null; true", l -> there.append(l).append('\n'));
        if (there.toString().strip().equals(pem.strip())) {
            run.progress("grants key: unchanged - " + GRANTS_KEY + " is grant-service's key " + key.path("keyId").asText());
            return;
        }
        Ssh.Result r = run.ssh().run("mkdir -p " + Ssh.quote(file.substring(0, file.lastIndexOf('/'))) + " && printf '%s' "
                + Ssh.quote(pem) + " > " + Ssh.quote(file + ".new") + " && chmod 0644 " + Ssh.quote(file + ".new")
                + " && mv " + Ssh.quote(file + ".new") + " " + Ssh.quote(file), l -> { });
        if (!r.ok()) {
            throw new Failure(ExitCodes.MACHINE_FAILED, "grants key: failed - cannot write " + GRANTS_KEY + ": "
                    + SetupRun.lastLines(r.stderr()));
        }
        run.progress("grants key: changed - wrote " + GRANTS_KEY + " (grant-service's key " + key.path("keyId").asText()
                + "; docker-gate applies only grant snapshots signed by it)");
    }
}
