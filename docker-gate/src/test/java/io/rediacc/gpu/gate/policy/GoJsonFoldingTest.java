package io.rediacc.gpu.gate.policy;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Key folding as Go's encoding/json does it (unicode.ToUpper(unicode.ToLower(r)) per rune). */
class GoJsonFoldingTest {

    @ParameterizedTest(name = "{0} reaches {1}")
    @CsvSource({
            "privileged, Privileged",
            "PRIVILEGED, Privileged",
            "DeviceRequeſtſ, DeviceRequests",
            "Mas\u212AedPaths, MaskedPaths",
            "Pr\u0131vileged, Privileged",
            "Pr\u0130vileged, Privileged",
            "devicecgrouprules, DeviceCgroupRules"})
    void keyFoldsToFieldName(String key, String field) {
        assertThat(GoJsonFolding.equalFold(key, field)).isTrue();
    }

    @ParameterizedTest(name = "{0} does not reach {1}")
    @CsvSource({
            "Privileged_, Privileged",
            "Privilegéd, Privileged",
            "Devices, DeviceRequests",
            "Binds\u200b, Binds"})
    void differentKeysDoNotFold(String key, String field) {
        assertThat(GoJsonFolding.equalFold(key, field)).isFalse();
    }

    @ParameterizedTest(name = "strings.ToUpper({0}) = {1}")
    @CsvSource({"sys_admin, SYS_ADMIN", "ſys_admin, SYS_ADMIN", "straße, STRAßE"})
    void goToUpperIsPerRune(String in, String out) {
        assertThat(GoJsonFolding.goToUpper(in)).isEqualTo(out);
    }
}
