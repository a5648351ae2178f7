package io.rediacc.gpu.agent.cli;

import io.rediacc.gpu.agent.host.HostRoot;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NotDirectoryException;

/** Turns a failure to write the machine's files into one sentence an operator can act on. */
final class WriteFailure {

    /** Exit code of a command that could not write the machine's files. */
    static final int EXIT_CODE = 3;

    private WriteFailure() {
    }

    static String describe(IOException e, HostRoot host) {
        String file = e instanceof FileSystemException fse && fse.getFile() != null ? host.toHostPaths(fse.getFile()) : null;
        if (e instanceof AccessDeniedException) {
            return "permission denied writing " + file + "; run as root (setup writes /etc/cdi and /etc/rediacc)";
        }
        if (e instanceof FileAlreadyExistsException || e instanceof NotDirectoryException) {
            return file + " is in the way: a directory is needed there; move that file away and run again";
        }
        String reason = e instanceof FileSystemException fse && fse.getReason() != null ? fse.getReason() : e.getMessage();
        return "cannot write " + (file != null ? file : "the machine's files") + ": " + host.toHostPaths(reason);
    }
}
