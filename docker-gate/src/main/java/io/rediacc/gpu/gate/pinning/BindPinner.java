package io.rediacc.gpu.gate.pinning;

import com.sun.jna.LastErrorException;
import com.sun.jna.Memory;
import com.sun.jna.NativeLong;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Pins one host path of a bind: opens it beneath its {@code hostPaths} root in one kernel step that
 * cannot leave the root ({@code openat2} with {@code RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS}:
 * symlinks that stay inside the root are followed, one that leads out fails with {@code EXDEV}),
 * judges the object actually opened by its physical path, and bind-mounts exactly that object
 * ({@code /proc/self/fd/N}, through mount(2), never the mount program, which would resolve the
 * path again) onto a gate-owned target outside every root. The daemon is then given the target:
 * whatever the repo later does to the path it named, the target stays the object that was judged
 * (the design Kubernetes uses for subPath, CVE-2017-1002101 and CVE-2021-25741).
 *
 * <p>Needs {@code CAP_SYS_ADMIN} in the daemons' mount namespace (docs/SECURITY.md).
 */
public final class BindPinner {

    /** What the judge of the opened object says about it: nothing (fine) or a refusal. */
    @FunctionalInterface
    public interface Judge {
        /** Throws {@link Refused} unless the object at {@code physicalPath} may be bound. */
        void judge(String physicalPath);
    }

    /** A pinned object: the target the daemon mounts, the object's path and identity when pinned. */
    public record Pin(Path target, String physicalPath, long dev, long ino, boolean directory) {
    }

    /** Why a path cannot be pinned, in words the user can act on. */
    public static final class Refused extends RuntimeException {
        /** The kind of refusal: the caller picks the HTTP status (the repo's mistake, or the gate's). */
        public enum Kind { ESCAPES_ROOT, MISSING, NOT_A_DIRECTORY_OR_FILE, PROTECTED, LINK_LOOP, CANNOT_PIN }

        private final Kind kind;

        public Refused(Kind kind, String message) {
            super(message);
            this.kind = kind;
        }

        public Kind kind() {
            return kind;
        }
    }

    private static final LibC C = LibC.C;

    private BindPinner() {
    }

    /**
     * Opens {@code rel} (relative, already cleaned, no {@code .} or {@code ..} segment; empty for the
     * root itself) beneath {@code root}, lets {@code judge} look at the object opened, and bind-mounts
     * it onto {@code target} (which must not exist; its parent must). With {@code createMissing},
     * missing directories are made one by one, each beneath the last one opened (as the daemon makes
     * a missing {@code -v} source).
     */
    public static Pin pin(Path root, String rel, boolean createMissing, Judge judge, Path target) {
        checkRelative(rel);
        int rootFd = openRoot(root);
        int fd = -1;
        try {
            fd = openBeneath(rootFd, root, rel, createMissing);
            String physical = physicalPath(fd, root, rel);
            Map<String, Object> attrs = attributes(fdPath(fd));
            int mode = (Integer) attrs.get("mode");
            int type = mode & 0170000;
            boolean directory = type == 0040000;
            if (!directory && type != 0100000) {
                throw new Refused(Refused.Kind.NOT_A_DIRECTORY_OR_FILE, root.resolve(rel) + " is " + describeType(type)
                        + ", not a directory or a regular file; bind a directory or a file");
            }
            judge.judge(physical);
            long dev = (Long) attrs.get("dev");
            long ino = (Long) attrs.get("ino");
            mountOnto(fd, directory, target, dev, ino);
            return new Pin(target, physical, dev, ino, directory);
        } finally {
            closeQuietly(fd);
            closeQuietly(rootFd);
        }
    }

    /**
     * Re-opens {@code rel} beneath {@code root} and pins it again onto {@code target} only if it is
     * still the object {@code (dev, ino)} that was judged (a gate restart after a reboot: the pins
     * were lost, the record remains). Returns false, pinning nothing, when the object changed.
     */
    public static boolean repin(Path root, String rel, long dev, long ino, Path target) {
        checkRelative(rel);
        int rootFd = openRoot(root);
        int fd = -1;
        try {
            fd = openBeneath(rootFd, root, rel, false);
            Map<String, Object> attrs = attributes(fdPath(fd));
            if ((Long) attrs.get("dev") != dev || (Long) attrs.get("ino") != ino) {
                return false;
            }
            boolean directory = (((Integer) attrs.get("mode")) & 0170000) == 0040000;
            mountOnto(fd, directory, target, dev, ino);
            return true;
        } catch (Refused gone) {
            return false;
        } finally {
            closeQuietly(fd);
            closeQuietly(rootFd);
        }
    }

    /** Whether {@code target} is there and shows the object {@code (dev, ino)} (a pin still mounted). */
    public static boolean holds(Path target, long dev, long ino) {
        try {
            Map<String, Object> attrs = Files.readAttributes(target, "unix:dev,ino", LinkOption.NOFOLLOW_LINKS);
            return (Long) attrs.get("dev") == dev && (Long) attrs.get("ino") == ino;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** Unmounts a pin (if mounted) and removes its target; a missing target is fine. */
    public static void unpin(Path target) {
        try {
            C.umount2(target.toString(), LibC.MNT_DETACH | LibC.UMOUNT_NOFOLLOW);
        } catch (LastErrorException e) {
            if (e.getErrorCode() != LibC.EINVAL && e.getErrorCode() != LibC.ENOENT) {
                throw new IllegalStateException("umount " + target + ": errno " + e.getErrorCode(), e);
            }
        }
        try {
            Files.deleteIfExists(target);
        } catch (IOException e) {
            throw new IllegalStateException("remove " + target + ": " + e.getMessage(), e);
        }
    }

    private static void checkRelative(String rel) {
        if (rel.isEmpty()) {
            return;
        }
        if (rel.startsWith("/") || rel.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("not a clean relative path: " + rel);
        }
        for (String segment : rel.split("/", -1)) {
            if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
                throw new IllegalArgumentException("not a clean relative path: " + rel);
            }
        }
    }

    /** The root is the operator's (the manifest names it); it is opened as written. */
    private static int openRoot(Path root) {
        try {
            return C.open(root.toString(), LibC.O_PATH | LibC.O_DIRECTORY | LibC.O_CLOEXEC);
        } catch (LastErrorException e) {
            throw new Refused(Refused.Kind.CANNOT_PIN, "the hostPaths root " + root + " cannot be opened (errno "
                    + e.getErrorCode() + "); the gate refuses binds under it until it can");
        }
    }

    private static int openBeneath(int rootFd, Path root, String rel, boolean createMissing) {
        try {
            return openat2(rootFd, rel.isEmpty() ? "." : rel);
        } catch (LastErrorException e) {
            if (e.getErrorCode() == LibC.ENOSYS) {
                return walk(rootFd, root, rel, createMissing);
            }
            if (e.getErrorCode() == LibC.ENOENT && createMissing) {
                return create(rootFd, root, rel);
            }
            throw refusal(e.getErrorCode(), root, rel);
        }
    }

    private static int openat2(int dirFd, String rel) {
        return openat2(dirFd, rel, LibC.RESOLVE_BENEATH | LibC.RESOLVE_NO_MAGICLINKS);
    }

    private static int openat2(int dirFd, String rel, long resolve) {
        Memory how = new Memory(24);
        how.setLong(0, LibC.O_PATH | LibC.O_CLOEXEC);
        how.setLong(8, 0);
        how.setLong(16, resolve);
        for (int attempt = 0; ; attempt++) {
            try {
                return (int) C.syscall(LibC.SYS_OPENAT2, dirFd, rel, how, 24L);
            } catch (LastErrorException e) {
                // EAGAIN: a rename raced the lookup (RESOLVE_BENEATH's guard); try again a few times.
                if (e.getErrorCode() != LibC.EAGAIN || attempt >= 8) {
                    throw e;
                }
            }
        }
    }

    /**
     * A missing path to create: the longest existing prefix is opened beneath the root, then each
     * missing directory is made with mkdirat under the descriptor of its parent and opened without
     * following a link (one swapped in between is refused).
     */
    private static int create(int rootFd, Path root, String rel) {
        String[] segments = rel.split("/");
        int existing = segments.length - 1;
        int parent = -1;
        while (existing > 0) {
            try {
                parent = openat2(rootFd, String.join("/", java.util.Arrays.copyOf(segments, existing)));
                break;
            } catch (LastErrorException e) {
                if (e.getErrorCode() != LibC.ENOENT) {
                    throw refusal(e.getErrorCode(), root, rel);
                }
                existing--;
            }
        }
        if (existing == 0) {
            parent = openat2(rootFd, ".");
        }
        try {
            for (int i = existing; i < segments.length; i++) {
                try {
                    C.syscall(LibC.SYS_MKDIRAT, parent, segments[i], 0755);
                } catch (LastErrorException e) {
                    if (e.getErrorCode() != LibC.EEXIST) {
                        throw new Refused(Refused.Kind.CANNOT_PIN, "the gate could not create " + root.resolve(rel)
                                + " (errno " + e.getErrorCode() + "); create it yourself");
                    }
                }
                int next;
                try {
                    next = openat2(parent, segments[i], LibC.RESOLVE_BENEATH | LibC.RESOLVE_NO_MAGICLINKS | LibC.RESOLVE_NO_SYMLINKS);
                } catch (LastErrorException e) {
                    throw refusal(e.getErrorCode(), root, rel);
                }
                closeQuietly(parent);
                parent = next;
            }
            int done = parent;
            parent = -1;
            return done;
        } finally {
            closeQuietly(parent);
        }
    }

    /** Kernels before 5.6: one segment at a time, links refused outright (no openat2 to keep them inside). */
    private static int walk(int rootFd, Path root, String rel, boolean createMissing) {
        int parent = (int) C.syscall(LibC.SYS_OPENAT, rootFd, ".", LibC.O_PATH | LibC.O_DIRECTORY | LibC.O_CLOEXEC, 0);
        if (rel.isEmpty()) {
            return parent;
        }
        try {
            String[] segments = rel.split("/");
            for (int i = 0; i < segments.length; i++) {
                boolean last = i == segments.length - 1;
                int flags = LibC.O_PATH | LibC.O_NOFOLLOW | LibC.O_CLOEXEC | (last ? 0 : LibC.O_DIRECTORY);
                int next;
                try {
                    next = (int) C.syscall(LibC.SYS_OPENAT, parent, segments[i], flags, 0);
                } catch (LastErrorException e) {
                    if (e.getErrorCode() == LibC.ENOENT && createMissing) {
                        try {
                            C.syscall(LibC.SYS_MKDIRAT, parent, segments[i], 0755);
                        } catch (LastErrorException exists) {
                            if (exists.getErrorCode() != LibC.EEXIST) {
                                throw refusal(exists.getErrorCode(), root, rel);
                            }
                        }
                        i--;
                        continue;
                    }
                    throw refusal(e.getErrorCode() == LibC.ENOTDIR ? LibC.ELOOP : e.getErrorCode(), root, rel);
                }
                closeQuietly(parent);
                parent = next;
                if (last && (((Integer) attributes(fdPath(parent)).get("mode")) & 0170000) == 0120000) {
                    throw refusal(LibC.ELOOP, root, rel);
                }
            }
            int done = parent;
            parent = -1;
            return done;
        } finally {
            closeQuietly(parent);
        }
    }

    private static Refused refusal(int errno, Path root, String rel) {
        Path path = root.resolve(rel);
        return switch (errno) {
            case LibC.EXDEV -> new Refused(Refused.Kind.ESCAPES_ROOT, path + " leads out of the hostPaths root " + root
                    + " (a symlink on the way points outside it, or at an absolute path); replace the link with the directory"
                    + " it stands for, or bind the link's target itself if it lies under hostPaths");
            case LibC.ENOENT -> new Refused(Refused.Kind.MISSING, path + " does not exist; create it first (the gate binds"
                    + " only what exists when the container is created)");
            case LibC.ELOOP -> new Refused(Refused.Kind.LINK_LOOP, path + " has a symlink on the way that the gate will not"
                    + " follow (a link loop, a /proc link, or a link on a kernel without openat2); replace the link with the"
                    + " directory it stands for");
            case LibC.ENOTDIR -> new Refused(Refused.Kind.MISSING, path + " has a file where a directory is expected on the way");
            case LibC.EACCES, LibC.EPERM -> new Refused(Refused.Kind.CANNOT_PIN, path + " cannot be opened by the gate (errno "
                    + errno + "); the gate refuses what it cannot pin");
            default -> new Refused(Refused.Kind.CANNOT_PIN, path + " cannot be opened by the gate (errno " + errno + ")");
        };
    }

    /** The object's path as the kernel names the descriptor now: what the judge judges. */
    private static String physicalPath(int fd, Path root, String rel) {
        try {
            String link = Files.readSymbolicLink(fdPath(fd)).toString();
            if (!link.startsWith("/") || link.endsWith(" (deleted)")) {
                throw new Refused(Refused.Kind.MISSING, root.resolve(rel) + " was removed while the gate opened it; try again");
            }
            return link;
        } catch (IOException e) {
            throw new Refused(Refused.Kind.CANNOT_PIN, "the gate cannot name what it opened at " + root.resolve(rel) + ": " + e.getMessage());
        }
    }

    /** Bind-mounts the object open at {@code fd} (its identity {@code dev}, {@code ino}: a descriptor keeps its object) onto {@code target}. */
    private static void mountOnto(int fd, boolean directory, Path target, long dev, long ino) {
        try {
            if (directory) {
                Files.createDirectory(target);
            } else {
                Files.createFile(target);
            }
        } catch (IOException e) {
            throw new Refused(Refused.Kind.CANNOT_PIN, "the gate cannot create its pin " + target + ": " + e.getMessage());
        }
        boolean mounted = false;
        try {
            // Not MS_REC: mounts below the source stay out (the daemon's own overlays under a repo mount, for one).
            C.mount(fdPath(fd).toString(), target.toString(), null, new NativeLong(LibC.MS_BIND), null);
            mounted = true;
            // Private: a pin must not be a peer of the source's (shared) mount, nor receive mounts from it.
            C.mount(null, target.toString(), null, new NativeLong(LibC.MS_PRIVATE), null);
            if (!holds(target, dev, ino)) {
                throw new Refused(Refused.Kind.CANNOT_PIN, "the gate's pin " + target + " does not show the object it opened");
            }
        } catch (LastErrorException e) {
            cleanUp(target, mounted);
            throw new Refused(Refused.Kind.CANNOT_PIN, "the gate cannot bind-mount " + target + " (errno " + e.getErrorCode()
                    + (e.getErrorCode() == LibC.EPERM ? ": it needs CAP_SYS_ADMIN in the Docker daemons' mount namespace, see docs/SECURITY.md" : "")
                    + "); it refuses binds it cannot pin");
        } catch (RuntimeException e) {
            cleanUp(target, mounted);
            throw e;
        }
    }

    private static void cleanUp(Path target, boolean mounted) {
        try {
            if (mounted) {
                unpin(target);
            } else {
                Files.deleteIfExists(target);
            }
        } catch (IOException | RuntimeException ignored) {
            // the sweep finds it
        }
    }

    private static Map<String, Object> attributes(Path path) {
        try {
            return Files.readAttributes(path, "unix:dev,ino,mode");
        } catch (NoSuchFileException e) {
            throw new Refused(Refused.Kind.MISSING, "what the gate opened is gone: " + e.getMessage());
        } catch (IOException e) {
            throw new Refused(Refused.Kind.CANNOT_PIN, "the gate cannot stat what it opened: " + e.getMessage());
        }
    }

    private static Path fdPath(int fd) {
        return Path.of("/proc/self/fd/" + fd);
    }

    private static String describeType(int type) {
        return switch (type) {
            case 0020000 -> "a character device";
            case 0060000 -> "a block device";
            case 0140000 -> "a socket";
            case 0010000 -> "a FIFO";
            case 0120000 -> "a symlink";
            default -> "a special file";
        };
    }

    private static void closeQuietly(int fd) {
        if (fd >= 0) {
            try {
                C.close(fd);
            } catch (LastErrorException ignored) {
                // nothing to do
            }
        }
    }

    /**
     * Makes {@code dir} a private mount of its own (a bind of itself), once: pins made under it then
     * neither propagate to the peers of the parent mount (systemd makes / and /run shared, so a pin
     * made under a shared parent would be copied to every peer, and its unmount after MS_PRIVATE would
     * not follow) nor receive mounts from it.
     */
    public static void makePrivateMount(Path dir) {
        try {
            if (!isMountPoint(dir)) {
                C.mount(dir.toString(), dir.toString(), null, new NativeLong(LibC.MS_BIND), null);
            }
            C.mount(null, dir.toString(), null, new NativeLong(LibC.MS_PRIVATE), null);
        } catch (LastErrorException e) {
            throw new IllegalStateException("the gate cannot make its pin directory " + dir + " a private mount (errno "
                    + e.getErrorCode() + (e.getErrorCode() == LibC.EPERM ? ": it needs CAP_SYS_ADMIN, see docs/SECURITY.md" : "")
                    + ")", e);
        }
    }

    /** Unmounts everything at and under {@code dir}, deepest first, and leaves the directories (tests, teardown). */
    public static void unmountAll(Path dir) {
        List<Path> points = new ArrayList<>(mountsUnder(dir));
        if (isMountPoint(dir)) {
            points.add(dir);
        }
        points.sort(java.util.Comparator.comparingInt((Path p) -> p.toString().length()).reversed());
        for (Path p : points) {
            try {
                C.umount2(p.toString(), LibC.MNT_DETACH | LibC.UMOUNT_NOFOLLOW);
            } catch (LastErrorException ignored) {
                // gone already
            }
        }
    }

    private static boolean isMountPoint(Path dir) {
        String want = dir.toAbsolutePath().normalize().toString();
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
                String[] f = line.split(" ");
                if (f.length > 4 && unescape(f[4]).equals(want)) {
                    return true;
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot read /proc/self/mountinfo: " + e.getMessage(), e);
        }
        return false;
    }

    private static String unescape(String field) {
        return field.replace("\\040", " ").replace("\\011", "\t").replace("\\012", "\n").replace("\\134", "\\");
    }

    /** Mount points under {@code dir} as this process's mount namespace sees them (for the sweep and the tests). */
    public static List<Path> mountsUnder(Path dir) {
        List<Path> points = new ArrayList<>();
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
                String[] f = line.split(" ");
                if (f.length > 4) {
                    String point = f[4].replace("\\040", " ").replace("\\011", "\t").replace("\\012", "\n").replace("\\134", "\\");
                    if (point.startsWith(dir + "/")) {
                        points.add(Path.of(point));
                    }
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot read /proc/self/mountinfo: " + e.getMessage(), e);
        }
        return points;
    }
}
