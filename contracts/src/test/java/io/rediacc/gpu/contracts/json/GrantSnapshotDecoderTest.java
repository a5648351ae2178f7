package io.rediacc.gpu.contracts.json;

import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.GrantSnapshot;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class GrantSnapshotDecoderTest {

    private static final String GRANT = "{\"repoGuid\":\"3f2b8c1e-9d4a-4e57-8f0a-2c6d7e9b1a43\",\"repoName\":\"repo\","
            + "\"device\":\"nvidia.com/gpu=%d\",\"exclusive\":false,\"grantedBy\":\"op\",\"grantedAt\":\"2026-11-29T10:00:00Z\"}";

    /** Spellings a producer might send that the strict reader accepts. */
    private static final List<String> SNAPSHOTS = List.of(
            "{\"machine\":\"m1\",\"version\":3,\"updatedAt\":\"2026-11-29T10:00:00Z\",\"grants\":[" + grant(0) + "," + grant(1) + "]}",
            "{\"grants\":[" + grant(0) + "],\"machine\":\"m1\",\"version\":4}",
            "{\"machine\":\"m1\",\"version\":5,\"grants\":null}",
            "{\"machine\":\"m1\",\"version\":6}",
            "{\"machine\":\"m1\",\"future\":{\"a\":[1,2]},\"version\":10,\"grants\":[{\"device\":\"x\",\"exclusive\":false,\"extra\":1}]}");

    /** Spellings an attacker with write access to the topic (or a broken producer) might send: all refused. */
    private static final List<String> LENIENT_ONLY = List.of(
            "{\"grants\":[" + grant(0) + "],\"machine\":\"m1\",\"version\":\"4\"}",
            "{\"machine\":\"m1\",\"version\":7,\"grants\":[" + grant(0) + "],\"grants\":[" + grant(2) + "]}",
            "{\"machine\":\"m1\",\"version\":8,\"grants\":[" + grant(0) + "],\"grants\":null}",
            "{\"machine\":\"m1\",\"version\":9,\"grants\":null,\"grants\":[" + grant(3) + "]}",
            "{\"machine\":\"m1\",\"version\":11,\"machine\":\"m2\",\"grants\":[]}",
            "{\"machine\":\"m1\",\"version\":12,\"grants\":[]}{\"machine\":\"m1\",\"version\":13,\"grants\":[]}",
            "{\"machine\":\"m1\",\"version\":14,\"grants\":[]} []",
            "{\"machine\":\"m1\",\"version\":15,\"grants\":[" + grant(0).replace("\"exclusive\":false", "\"exclusive\":1") + "]}",
            "{\"machine\":\"m1\",\"version\":16,\"grants\":[" + grant(0).replace("\"device\":\"nvidia.com/gpu=0\",",
                    "\"device\":\"nvidia.com/gpu=0\",\"device\":\"nvidia.com/gpu=all\",") + "]}",
            "\uFEFF{\"machine\":\"m1\",\"version\":17,\"grants\":[]}",
            "{\"machine\":\"m1\",\"version\":18.0,\"grants\":[]}",
            "{\"machine\":\"m1\",\"version\":19,\"grants\":[{\"device\":\"x\"}]}");

    private static String grant(int gpu) {
        return String.format(GRANT, gpu);
    }

    @Test
    void readsEverySnapshotAsDataBindingReadsIt() throws IOException {
        for (String json : SNAPSHOTS) {
            byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
            GrantSnapshot bound = StrictJson.readEvent(bytes, GrantSnapshot.class);

            assertThat(GrantSnapshotDecoder.read(bytes)).as(json).isEqualTo(bound);
            assertThat(GrantSnapshotDecoder.read(new ByteArrayInputStream(bytes))).as(json).isEqualTo(bound);
        }
    }

    @Test
    void refusesWhatTheStrictReaderRefusesThoughTheLenientOneReadIt() {
        for (String json : LENIENT_ONLY) {
            byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
            assertThat(EventJson.fromBytes(bytes, GrantSnapshot.class)).as(json).isNotNull();
            assertThatThrownBy(() -> StrictJson.readEvent(bytes, GrantSnapshot.class)).as(json).isInstanceOf(UncheckedIOException.class);
            assertThatThrownBy(() -> GrantSnapshotDecoder.read(bytes)).as(json).isInstanceOf(UncheckedIOException.class);
            assertThatThrownBy(() -> GrantSnapshotDecoder.read(new ByteArrayInputStream(bytes))).as(json).isInstanceOf(IOException.class);
        }
    }

    @Test
    void refusesWhatDataBindingRefuses() {
        for (String json : List.of("", "[]", "{\"machine\":\"m1\",\"version\":1,\"grants\":[null]}",
                "{\"machine\":\"m1\",\"version\":1,\"grants\":{\"device\":\"x\"}}", "{\"machine\":\"m1\",\"version\":",
                "{\"machine\":\"m1\",\"version\":1,\"grants\":[" + grant(0))) {
            byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
            assertThatThrownBy(() -> StrictJson.readEvent(bytes, GrantSnapshot.class)).as(json).isInstanceOf(RuntimeException.class);
            assertThatThrownBy(() -> GrantSnapshotDecoder.read(bytes)).as(json).isInstanceOf(UncheckedIOException.class);
        }
    }

    @Test
    void repeatedValuesAreHeldOnceAsTheyAreRead() {
        GrantSnapshot read = GrantSnapshotDecoder.read(SNAPSHOTS.get(0).getBytes(StandardCharsets.UTF_8));

        assertThat(read.grants().get(1).repoGuid()).isSameAs(read.grants().get(0).repoGuid());
        assertThat(read.grants().get(1).repoName()).isSameAs(read.grants().get(0).repoName());
        assertThat(read.grants().get(1).grantedBy()).isSameAs(read.grants().get(0).grantedBy());
        assertThat(read.grants().get(1).grantedAt()).isSameAs(read.grants().get(0).grantedAt());
    }
}
