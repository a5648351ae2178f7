package io.rediacc.gpu.gate.policy;

import static io.rediacc.gpu.gate.policy.PolicyTestKit.MAX_BODY;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.POLICY;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.REPO;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.grants;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Requests crafted to make the gate see something other than what the daemon acts on: JSON the
 * way Go reads it, and paths the way the daemon routes them. Every one is refused, granted or not.
 */
class JsonAndPathTrickRefusalTest {

    private static final String CREATE = "/v1.50/containers/create";
    private static final String PRIVILEGED = "{\"HostConfig\":{\"Privileged\":true}}";
    private static final String RAW_DEVICE = "{\"HostConfig\":{\"Devices\":[{\"PathOnHost\":\"/dev/nvidia0\",\"PathInContainer\":\"/dev/nvidia0\",\"CgroupPermissions\":\"rwm\"}]}}";

    static Stream<Arguments> jsonTricks() {
        return Stream.of(
                // Case folding: Go matches keys to fields case-insensitively.
                trick("lowerCaseKeysStillReachHostConfig", "{\"hostconfig\":{\"privileged\":true}}", 403, "privileged"),
                trick("upperCaseKeysStillReachHostConfig", "{\"HOSTCONFIG\":{\"PRIVILEGED\":true}}", 403, "privileged"),
                trick("longSFoldsToSInDeviceRequests", "{\"HostConfig\":{\"DeviceRequeſtſ\":[{\"Driver\":\"nvidia\",\"Count\":-1,\"Capabilities\":[[\"gpu\"]]}]}}", 403, "gpus-request"),
                trick("longSFoldsToSInBinds", "{\"HostConfig\":{\"Bindſ\":[\"/dev:/dev\"]}}", 403, "host-path"),
                trick("kelvinSignFoldsToKInMaskedPaths", "{\"HostConfig\":{\"Mas\u212AedPaths\":[]}}", 403, "system-paths"),
                trick("dotlessIFoldsToIInPrivileged", "{\"HostConfig\":{\"Pr\u0131vileged\":true}}", 403, "privileged"),
                trick("escapedLetterInKeyCounts", "{\"HostConfig\":{\"\\u0050rivileged\":true}}", 403, "privileged"),
                trick("escapedLetterInHostConfigKeyCounts", "{\"Host\\u0043onfig\":{\"Privileged\":true}}", 403, "privileged"),
                trick("escapedKeyReachesDeviceCgroupRules", "{\"HostConfig\":{\"DeviceCgroupRule\\u017f\":[\"c 195:* rwm\"]}}", 403, "device-cgroup-rule"),
                // Duplicates: Go keeps the last value and merges duplicate objects; the gate refuses.
                trick("exactDuplicateKeyIsRefused", "{\"HostConfig\":{\"Privileged\":false,\"Privileged\":true}}", 400, "body-duplicate-key"),
                trick("caseFoldedDuplicateKeyIsRefused", "{\"HostConfig\":{\"Privileged\":false,\"privileged\":true}}", 400, "body-duplicate-key"),
                trick("escapedDuplicateKeyIsRefused", "{\"HostConfig\":{\"Privileged\":false,\"\\u0050rivileged\":true}}", 400, "body-duplicate-key"),
                trick("longSDuplicateKeyIsRefused", "{\"HostConfig\":{\"DeviceRequests\":[],\"DeviceRequeſts\":[{\"Driver\":\"\",\"Count\":-1}]}}", 400, "body-duplicate-key"),
                trick("duplicateHostConfigObjectsAreRefusedNotMerged", "{\"HostConfig\":{\"Privileged\":false},\"HostConfig\":{\"Devices\":[]}}", 400, "body-duplicate-key"),
                trick("caseFoldedDuplicateHostConfigIsRefused", "{\"HostConfig\":{},\"hostconfig\":{\"Privileged\":true}}", 400, "body-duplicate-key"),
                trick("duplicateKeyInsideADeviceRequestIsRefused", "{\"HostConfig\":{\"DeviceRequests\":[{\"Driver\":\"cdi\",\"DeviceIDs\":[\"nvidia.com/gpu=0\"],\"driver\":\"nvidia\"}]}}", 400, "body-duplicate-key"),
                trick("duplicateKeyInAMapIsRefused", "{\"Labels\":{\"a\":\"1\",\"A\":\"2\"}}", 400, "body-duplicate-key"),
                // HostConfig fields at the top level: daemons up to v26 apply them.
                trick("topLevelPrivilegedIsRefused", "{\"Image\":\"ubuntu\",\"Privileged\":true}", 400, "top-level-host-config"),
                trick("topLevelDevicesIsRefused", "{\"Image\":\"ubuntu\",\"Devices\":[{\"PathOnHost\":\"/dev/kfd\"}]}", 400, "top-level-host-config"),
                trick("topLevelBindsInLowerCaseIsRefused", "{\"Image\":\"ubuntu\",\"binds\":[\"/dev:/dev\"]}", 400, "top-level-host-config"),
                trick("topLevelDeviceRequestsWithLongSIsRefused", "{\"DeviceRequeſts\":[]}", 400, "top-level-host-config"),
                trick("topLevelRuntimeIsRefusedEvenWhenHarmless", "{\"Runtime\":\"runc\"}", 400, "top-level-host-config"),
                // Types: the daemon would reject these; the gate does not judge what it cannot read the same way.
                trick("privilegedAsStringIsRefused", "{\"HostConfig\":{\"Privileged\":\"true\"}}", 400, "body-field-type"),
                trick("privilegedAsNumberIsRefused", "{\"HostConfig\":{\"Privileged\":1}}", 400, "body-field-type"),
                trick("deviceRequestsAsObjectIsRefused", "{\"HostConfig\":{\"DeviceRequests\":{}}}", 400, "body-field-type"),
                trick("hostConfigAsArrayIsRefused", "{\"HostConfig\":[]}", 400, "body-field-type"),
                trick("countAsFloatIsRefused", "{\"HostConfig\":{\"DeviceRequests\":[{\"Driver\":\"cdi\",\"Count\":1.0,\"DeviceIDs\":[\"nvidia.com/gpu=0\"]}]}}", 400, "body-field-type"),
                trick("countWithExponentIsRefused", "{\"HostConfig\":{\"DeviceRequests\":[{\"Driver\":\"cdi\",\"Count\":0e0,\"DeviceIDs\":[\"nvidia.com/gpu=0\"]}]}}", 400, "body-field-type"),
                trick("countBeyondInt64IsRefused", "{\"HostConfig\":{\"DeviceRequests\":[{\"Driver\":\"cdi\",\"Count\":18446744073709551616}]}}", 400, "body-field-type"),
                trick("deviceIdAsNumberIsRefused", "{\"HostConfig\":{\"DeviceRequests\":[{\"Driver\":\"cdi\",\"DeviceIDs\":[0]}]}}", 400, "body-field-type"),
                trick("bindsAsStringIsRefused", "{\"HostConfig\":{\"Binds\":\"/dev:/dev\"}}", 400, "body-field-type"),
                // Syntax Go refuses, or reads differently.
                trick("trailingSecondDocumentIsRefused", "{\"Image\":\"ubuntu\"}{\"HostConfig\":{\"Privileged\":true}}", 400, "body-not-json"),
                trick("trailingCommaIsRefused", "{\"HostConfig\":{\"Privileged\":false,}}", 400, "body-not-json"),
                trick("commentIsRefused", "{\"HostConfig\":{/* privileged */\"Privileged\":false}}", 400, "body-not-json"),
                trick("nanIsRefused", "{\"HostConfig\":{\"CpuShares\":NaN}}", 400, "body-not-json"),
                trick("infinityIsRefused", "{\"HostConfig\":{\"Memory\":-Infinity}}", 400, "body-not-json"),
                trick("singleQuotesAreRefused", "{'HostConfig':{'Privileged':true}}", 400, "body-not-json"),
                trick("unquotedKeyIsRefused", "{HostConfig:{}}", 400, "body-not-json"),
                trick("leadingZeroNumberIsRefused", "{\"HostConfig\":{\"DeviceRequests\":[{\"Driver\":\"cdi\",\"Count\":00}]}}", 400, "body-not-json"),
                trick("plusSignNumberIsRefused", "{\"StopTimeout\":+1}", 400, "body-not-json"),
                trick("rawControlCharacterInStringIsRefused", "{\"Image\":\"ubu\tntu\"}", 400, "body-not-json"),
                trick("invalidEscapeIsRefused", "{\"Image\":\"\\x41\"}", 400, "body-not-json"),
                trick("unterminatedBodyIsRefused", "{\"HostConfig\":{\"Privileged\":false}", 400, "body-not-json"),
                trick("topLevelArrayIsRefused", "[" + PRIVILEGED + "]", 400, "body-field-type"),
                trick("topLevelNullIsRefused", "null", 400, "body-field-type"),
                trick("whitespaceOnlyBodyIsRefused", "  \n ", 400, "body-not-json"),
                trick("capitalTrueLiteralIsRefused", "{\"HostConfig\":{\"Privileged\":True}}", 400, "body-not-json"),
                trick("nestingBeyondTheLimitIsRefused", "{\"Labels\":" + "[".repeat(300) + "]".repeat(300) + "}", 400, "body-not-json"),
                // CDI request shape.
                trick("cdiRequestWithCountAllIsRefused", "{\"HostConfig\":{\"DeviceRequests\":[{\"Driver\":\"cdi\",\"Count\":-1,\"DeviceIDs\":[\"nvidia.com/gpu=0\"]}]}}", 403, "cdi-request-shape"),
                trick("cdiRequestWithOptionsIsRefused", "{\"HostConfig\":{\"DeviceRequests\":[{\"Driver\":\"cdi\",\"DeviceIDs\":[\"nvidia.com/gpu=0\"],\"Options\":{\"x\":\"y\"}}]}}", 403, "cdi-request-shape"),
                trick("upperCaseCdiDriverIsRefused", "{\"HostConfig\":{\"DeviceRequests\":[{\"Driver\":\"CDI\",\"DeviceIDs\":[\"nvidia.com/gpu=0\"]}]}}", 403, "device-driver"),
                trick("nvidiaCdiDriverIsRefused", "{\"HostConfig\":{\"DeviceRequests\":[{\"Driver\":\"nvidia.cdi\",\"DeviceIDs\":[\"nvidia.com/gpu=0\"]}]}}", 403, "device-driver"),
                trick("emptyDriverWithIdsIsRefused", "{\"HostConfig\":{\"DeviceRequests\":[{\"Driver\":\"\",\"DeviceIDs\":[\"nvidia.com/gpu=0\"]}]}}", 403, "gpus-request"),
                trick("nullDeviceRequestIsRefused", "{\"HostConfig\":{\"DeviceRequests\":[null]}}", 403, "gpus-request"),
                trick("pathAsCdiNameIsRefused", "{\"HostConfig\":{\"DeviceRequests\":[{\"Driver\":\"cdi\",\"DeviceIDs\":[\"/dev/nvidia0\"]}]}}", 400, "cdi-name-invalid"),
                trick("cdiNameWithTrailingSpaceIsRefused", "{\"HostConfig\":{\"DeviceRequests\":[{\"Driver\":\"cdi\",\"DeviceIDs\":[\"nvidia.com/gpu=0 \"]}]}}", 400, "cdi-name-invalid"),
                trick("cdiNameInDevicesIsRefused", "{\"HostConfig\":{\"Devices\":[{\"PathOnHost\":\"nvidia.com/gpu=0\",\"PathInContainer\":\"nvidia.com/gpu=0\"}]}}", 403, "cdi-name-in-devices"),
                trick("rawDeviceIsRefused", RAW_DEVICE, 403, "raw-device"));
    }

    static Stream<Arguments> byteTricks() {
        return Stream.of(
                bytesTrick("invalidUtf8ByteIsRefused", concat("{\"Image\":\"", new byte[] {(byte) 0xff}, "\"}")),
                bytesTrick("overlongUtf8SlashIsRefused", concat("{\"HostConfig\":{\"Binds\":[\"", new byte[] {(byte) 0xc0, (byte) 0xaf}, "dev:/dev\"]}}")),
                bytesTrick("utf8EncodedSurrogateIsRefused", concat("{\"Image\":\"", new byte[] {(byte) 0xed, (byte) 0xa0, (byte) 0x80}, "\"}")),
                bytesTrick("truncatedUtf8SequenceIsRefused", concat("{\"Image\":\"", new byte[] {(byte) 0xe2, (byte) 0x82}, "\"}")),
                bytesTrick("byteOrderMarkIsRefused", concat("", new byte[] {(byte) 0xef, (byte) 0xbb, (byte) 0xbf}, "{}")),
                bytesTrick("nonAsciiOutsideStringsIsRefused", concat("{\"Image\":\"x\"", new byte[] {(byte) 0xc2, (byte) 0xa0}, "}")));
    }

    /** Spellings the daemon routes to container create (checked against dockerd 28.5.2): judged as a create. */
    static Stream<Arguments> pathTricks() {
        return Stream.of(
                Arguments.of("unversionedPathIsInspected", "/containers/create"),
                Arguments.of("oddVersionPrefixIsInspected", "/v1.2.3.4/containers/create"),
                Arguments.of("dotOnlyVersionPrefixIsInspected", "/v./containers/create"),
                Arguments.of("percentEncodedSlashIsInspected", "/v1.50/containers%2Fcreate"),
                Arguments.of("percentEncodedLetterIsInspected", "/v1.50/%63ontainers/%63reate"),
                Arguments.of("percentEncodedVersionIsInspected", "/%761.50/containers/create"),
                Arguments.of("absoluteFormTargetIsInspected", "http://localhost/v1.50/containers/create"),
                Arguments.of("absoluteFormWithPortAndQueryIsInspected", "HTTP://docker:2375/v1.50/containers/create?name=x"),
                Arguments.of("schemeWithoutAuthorityIsInspected", "unix:/v1.50/containers/create"),
                Arguments.of("queryStringIsInspected", "/v1.50/containers/create?name=gpu&platform=linux"));
    }

    /**
     * Spellings the daemon's router (gorilla/mux) matches no route with (404: case, trailing slash,
     * a second version prefix, an upper-case V) or answers with a redirect before routing (301: a
     * path that is not clean); checked against dockerd 28.5.2. The gate refuses them as unknown
     * routes, before their bodies: never judged as a create, never passed.
     */
    static Stream<Arguments> pathsTheDaemonRoutesNowhere() {
        return Stream.of(
                Arguments.of("repeatedVersionPrefix", "POST", "/v1.50/v1.24/containers/create"),
                Arguments.of("upperCaseVersionPrefix", "POST", "/V1.50/containers/create"),
                Arguments.of("doubleSlash", "POST", "/v1.50//containers//create"),
                Arguments.of("dotSegment", "POST", "/v1.50/./containers/./create"),
                Arguments.of("dotDotSegment", "POST", "/v1.50/images/../containers/create"),
                Arguments.of("encodedDotDotSegment", "POST", "/v1.50/images/%2e%2e/containers/create"),
                Arguments.of("trailingSlash", "POST", "/v1.50/containers/create/"),
                Arguments.of("upperCasePath", "POST", "/v1.50/CONTAINERS/Create"),
                Arguments.of("upperCaseStart", "POST", "/v1.50/containers/abc/Start"),
                Arguments.of("lowerCaseMethod", "post", "/v1.50/containers/create"),
                Arguments.of("mixedCaseMethod", "Post", "/v1.50/containers/create"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("pathsTheDaemonRoutesNowhere")
    void aSpellingTheDaemonRoutesNowhereIsAnUnknownRoute(String name, String method, String uri) {
        Refusal r = PolicyTestKit.refusal(POLICY.onHead(new RequestHead(method, uri, Map.of()), REPO));
        assertThat(r.status()).as(r.message()).isEqualTo(404);
        assertThat(r.rule()).isEqualTo("unknown-route");
        assertThat(r.message()).contains("has no route " + method);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jsonTricks")
    void jsonTrickIsRefused(String rule, String body, int status, String expectedRule) {
        assertRefused(PolicyTestKit.send(CREATE, body, grants("nvidia.com/gpu=0")), status, expectedRule);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("byteTricks")
    void byteTrickIsRefused(String rule, byte[] body) {
        assertRefused(PolicyTestKit.send(CREATE, body, grants()), 400, "body-not-json");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("pathTricks")
    void pathTrickStillReachesTheCreateRules(String rule, String uri) {
        assertRefused(PolicyTestKit.send(uri, PRIVILEGED, grants()), 403, "privileged");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("pathTricks")
    void pathTrickStillChecksGrants(String rule, String uri) {
        String cdi = "{\"HostConfig\":{\"DeviceRequests\":[{\"Driver\":\"cdi\",\"DeviceIDs\":[\"nvidia.com/gpu=0\"]}]}}";
        assertRefused(PolicyTestKit.send(uri, cdi, grants()), 403, "cdi-not-granted");
        assertThat(PolicyTestKit.send(uri, cdi, grants("nvidia.com/gpu=0"))).isEqualTo(new Verdict.Allow());
    }

    @org.junit.jupiter.api.Test
    void bodyOverTheLimitIsRefusedNotSkipped() {
        byte[] big = utf8("{\"Image\":\"" + "x".repeat(MAX_BODY) + "\"}");
        RequestHead head = new RequestHead("POST", CREATE, Map.of("transfer-encoding", List.of("chunked")));
        assertThat(POLICY.onHead(head, REPO)).isEqualTo(new HeadVerdict.InspectBody("container-create"));
        assertRefused(POLICY.onBody(head, big, REPO, grants()), 413, "body-too-large");
    }

    @org.junit.jupiter.api.Test
    void declaredLengthOverTheLimitIsRefusedAtTheHead() {
        RequestHead head = new RequestHead("POST", CREATE, Map.of("content-length", List.of(Integer.toString(MAX_BODY + 1))));
        Refusal r = PolicyTestKit.refusal(POLICY.onHead(head, REPO));
        assertThat(r.status()).isEqualTo(413);
    }

    private static void assertRefused(Verdict verdict, int status, String rule) {
        Refusal r = PolicyTestKit.refusal(verdict);
        assertThat(r.status()).as(r.message()).isEqualTo(status);
        assertThat(r.rule()).as(r.message()).isEqualTo(rule);
        assertThat(r.message()).isNotBlank();
    }

    private static Arguments trick(String name, String body, int status, String rule) {
        return Arguments.of(name, body, status, rule);
    }

    private static Arguments bytesTrick(String name, byte[] body) {
        return Arguments.of(name, body);
    }

    private static byte[] concat(String before, byte[] middle, String after) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(before.getBytes(StandardCharsets.UTF_8));
        out.writeBytes(middle);
        out.writeBytes(after.getBytes(StandardCharsets.UTF_8));
        return out.toByteArray();
    }
}
