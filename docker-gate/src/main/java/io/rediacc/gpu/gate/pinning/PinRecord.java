package io.rediacc.gpu.gate.pinning;

/**
 * One pin as the gate's state directory records it: enough to pin the same object again after a
 * reboot ({@code root}, {@code rel}, {@code dev}, {@code ino}) and to know when to remove it (its
 * owner's {@code token}: the label of the container or volume it serves).
 *
 * @param owner     {@code CONTAINER} or {@code VOLUME}
 * @param committed false until the daemon created the owner (a pin of a create still in flight, or
 *                  of a create the gate did not see finish, is swept after a grace period)
 */
public record PinRecord(String id, String token, String owner, String root, String rel, String requested,
                        String physical, long dev, long ino, boolean directory, long createdAtMillis, boolean committed) {

    PinRecord commit() {
        return new PinRecord(id, token, owner, root, rel, requested, physical, dev, ino, directory, createdAtMillis, true);
    }
}
