package io.rediacc.gpu.gate.service;

import com.sun.security.auth.module.UnixSystem;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The files the gate trusts: the repos manifest (which socket is which repo) and the state
 * directory with the grant snapshot (what is granted while Kafka is away). Whoever can write
 * them decides what the gate enforces, so the gate refuses to start when anyone but its own
 * user or root could write them or swap them.
 *
 * <p>Checked, for the manifest file, the state directory and the snapshot file (where it
 * exists): the path itself and every directory above it, once as written (each component not
 * followed, so a symlink's own directory counts) and once resolved (so the symlink's target and
 * its directories count). Each must be owned by root or the gate's user and must not be writable
 * by group or others; a directory above may be world-writable only with the sticky bit and owned
 * by root (like {@code /tmp}: others cannot rename or remove what is not theirs in it). A missing
 * state directory is created with mode 0700. Not checked: ACLs and mounts (the machine's own).
 */
public final class GateFiles {

    private static final int GROUP_WRITE = 0020;
    private static final int OTHER_WRITE = 0002;
    private static final int STICKY = 01000;

    private final long gateUid;

    GateFiles(long gateUid) {
        this.gateUid = gateUid;
    }

    /** Checks as the running process's user. */
    public static GateFiles ofThisProcess() {
        return new GateFiles(new UnixSystem().getUid());
    }

    /** Thrown with one line saying which file is unsafe and how to fix it. */
    public static final class UnsafeGateFileException extends IllegalStateException {
        UnsafeGateFileException(String message) {
            super(message);
        }
    }

    /**
     * Checks the manifest, the state directory and the snapshot file; creates a missing state
     * directory (0700). Throws {@link UnsafeGateFileException} naming the first unsafe path.
     *
     * @param snapshotFile null while the machine (and so the file's name) is not known yet
     */
    public void check(Path manifest, Path stateDir, Path snapshotFile) {
        checkPath(manifest, "the repos manifest (gate.manifest)", true);
        if (!Files.exists(stateDir, LinkOption.NOFOLLOW_LINKS)) {
            try {
                Files.createDirectories(stateDir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            } catch (IOException e) {
                throw new UnsafeGateFileException("cannot create the gate's state directory " + stateDir
                        + " (gate.state-dir): " + e.getMessage());
            }
        }
        checkPath(stateDir, "the gate's state directory (gate.state-dir)", true);
        if (snapshotFile != null) {
            checkPath(snapshotFile, "the grant snapshot file", false);
        }
    }

    private void checkPath(Path path, String role, boolean required) {
        Path absolute = path.toAbsolutePath().normalize();
        if (!Files.exists(absolute, LinkOption.NOFOLLOW_LINKS)) {
            if (required) {
                throw new UnsafeGateFileException(role + " " + absolute + " does not exist");
            }
            return;
        }
        Set<Path> chain = new LinkedHashSet<>(chain(absolute));
        try {
            chain.addAll(chain(absolute.toRealPath()));
        } catch (NoSuchFileException e) {
            throw new UnsafeGateFileException(role + " " + absolute + " is a symlink to nothing");
        } catch (IOException e) {
            throw new UnsafeGateFileException("cannot resolve " + role + " " + absolute + ": " + e.getMessage());
        }
        for (Path p : chain) {
            checkOne(p, role, absolute);
        }
    }

    /** The path and every directory above it, the path first. */
    private static List<Path> chain(Path path) {
        List<Path> out = new ArrayList<>();
        for (Path p = path; p != null; p = p.getParent()) {
            out.add(p);
        }
        return out;
    }

    private void checkOne(Path p, String role, Path of) {
        int mode;
        long uid;
        boolean link;
        boolean dir;
        try {
            mode = (Integer) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS);
            uid = ((Number) Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS)).longValue();
            link = Files.isSymbolicLink(p);
            dir = Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException | UnsupportedOperationException e) {
            throw new UnsafeGateFileException("cannot read the owner and mode of " + p + " (" + role + " " + of + "): "
                    + e.getMessage());
        }
        String where = p.equals(of) ? role + " " + of : p + " (above " + role + " " + of + ")";
        if (uid != 0 && uid != gateUid) {
            throw new UnsafeGateFileException(where + " is owned by uid " + uid + ", not by root or the gate's user (uid "
                    + gateUid + "): whoever owns it decides what the gate enforces; chown it to root or the gate's user");
        }
        if (link) {
            return; // a symlink's own mode means nothing; its directory and its target are checked
        }
        int writable = mode & (GROUP_WRITE | OTHER_WRITE);
        if (writable == 0) {
            return;
        }
        boolean stickyAbove = dir && !p.equals(of) && (mode & STICKY) != 0 && uid == 0;
        if (stickyAbove) {
            return;
        }
        throw new UnsafeGateFileException(where + " is writable by " + (writable == (GROUP_WRITE | OTHER_WRITE) ? "its group and others"
                : (writable & GROUP_WRITE) != 0 ? "its group" : "others")
                + " (mode " + String.format("%04o", mode & 07777) + "): whoever can write it decides what the gate"
                + " enforces; run chmod go-w " + p);
    }
}
