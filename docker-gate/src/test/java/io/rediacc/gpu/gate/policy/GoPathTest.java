package io.rediacc.gpu.gate.policy;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The table of Go's own path_test.go (cleantests): the gate cleans host paths exactly as Go does. */
class GoPathTest {

    @ParameterizedTest(name = "clean({0}) = {1}")
    @CsvSource(delimiter = '|', emptyValue = "", quoteCharacter = '"', textBlock = """
            ""                                    | .
            abc                                   | abc
            abc/def                               | abc/def
            a/b/c                                 | a/b/c
            .                                     | .
            ..                                    | ..
            ../..                                 | ../..
            ../../abc                             | ../../abc
            /abc                                  | /abc
            /                                     | /
            abc/                                  | abc
            abc/def/                              | abc/def
            a/b/c/                                | a/b/c
            ./                                    | .
            ../                                   | ..
            ../../                                | ../..
            /abc/                                 | /abc
            abc//def//ghi                         | abc/def/ghi
            //abc                                 | /abc
            ///abc                                | /abc
            //abc//                               | /abc
            abc//                                 | abc
            abc/./def                             | abc/def
            /./abc/def                            | /abc/def
            abc/.                                 | abc
            abc/def/ghi/../jkl                    | abc/def/jkl
            abc/def/../ghi/../jkl                 | abc/jkl
            abc/def/..                            | abc
            abc/def/../..                         | .
            /abc/def/../..                        | /
            abc/def/../../..                      | ..
            /abc/def/../../..                     | /
            abc/def/../../../ghi/jkl/../../../mno | ../../mno
            abc/./../def                          | def
            abc//./../def                         | def
            abc/../../././../def                  | ../../def
            //dev                                 | /dev
            /dev/../dev                           | /dev
            /dev/                                 | /dev
            /../../dev/dri                        | /dev/dri
            """)
    void goPathCleanTable(String path, String cleaned) {
        assertThat(GoPath.clean(path)).isEqualTo(cleaned);
    }
}
