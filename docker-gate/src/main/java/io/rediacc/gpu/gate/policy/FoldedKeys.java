package io.rediacc.gpu.gate.policy;

/**
 * The first member of a JSON object for each key as Go folds it ({@link GoJsonFolding}), found without
 * making a folded copy of any ASCII key: a hash of the key's folded form computed in place, and
 * {@link GoJsonFolding#equalFold} on a hash match. A 4 KiB create body has some 150 keys, and folding
 * each into a new string to index it (and each field name looked up) was a tenth of the gate's CPU per
 * create (issue 34). Open addressing, linear probing; grows at half full.
 */
final class FoldedKeys {

    private JsonValue.Member[] members = new JsonValue.Member[64];
    private int[] hashes = new int[64];
    private int size;

    /**
     * The member already held for {@code member}'s folded key, or null after adding {@code member};
     * {@code hash} is its key's {@link GoJsonFolding#foldedHash}.
     */
    JsonValue.Member putIfAbsent(JsonValue.Member member, int hash) {
        int mask = members.length - 1;
        for (int i = spread(hash) & mask; ; i = (i + 1) & mask) {
            JsonValue.Member held = members[i];
            if (held == null) {
                members[i] = member;
                hashes[i] = hash;
                if (++size * 2 > members.length) {
                    grow();
                }
                return null;
            }
            if (hashes[i] == hash && GoJsonFolding.equalFold(held.key(), member.key())) {
                return held;
            }
        }
    }

    /** The first member whose key folds like {@code name} (of {@link GoJsonFolding#foldedHash} {@code hash}), or null. */
    JsonValue.Member get(String name, int hash) {
        int mask = members.length - 1;
        for (int i = spread(hash) & mask; ; i = (i + 1) & mask) {
            JsonValue.Member held = members[i];
            if (held == null) {
                return null;
            }
            if (hashes[i] == hash && GoJsonFolding.equalFold(held.key(), name)) {
                return held;
            }
        }
    }

    private void grow() {
        JsonValue.Member[] oldMembers = members;
        int[] oldHashes = hashes;
        members = new JsonValue.Member[oldMembers.length * 2];
        hashes = new int[oldMembers.length * 2];
        int mask = members.length - 1;
        for (int k = 0; k < oldMembers.length; k++) {
            if (oldMembers[k] != null) {
                int i = spread(oldHashes[k]) & mask;
                while (members[i] != null) {
                    i = (i + 1) & mask;
                }
                members[i] = oldMembers[k];
                hashes[i] = oldHashes[k];
            }
        }
    }

    private static int spread(int hash) {
        return hash ^ (hash >>> 16);
    }
}
