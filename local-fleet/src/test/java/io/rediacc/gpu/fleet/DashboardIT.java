package io.rediacc.gpu.fleet;

import io.rediacc.gpu.fleet.SharedFleet.Result;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * inventory-service's dashboard in a real browser: Debian's headless {@code chromium}, driven through
 * Debian's {@code chromedriver} (apt: chromium-driver; .ci/run installs it) with Selenium, against the
 * local fleet ({@code ./fleet up}) the README session ran on ({@link SharedFleet}), every grant revoked first. A wrong token sees only the
 * login page; the viewer token logs in; grants of both repos appear on the machine page within a
 * second of {@code rdc repo gpu grant} returning, without a reload; a refused {@code docker run}
 * appears among the refusals. Screenshots of each page: {@code target/dashboard-screenshots}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Execution(ExecutionMode.SAME_THREAD) // one after another on SharedFleet's fleet, in @Order; other ITs run beside them
@Order(2) // after the README session, on its fleet (SharedFleet)
class DashboardIT {

    static final Path STATE = Path.of("target/e2e-dashboard").toAbsolutePath();
    static final Path SHOTS = Path.of("target/dashboard-screenshots").toAbsolutePath();
    static final String MACHINE = SharedFleet.MACHINE;
    static final Duration LIVE_WITHIN = Duration.ofSeconds(1);
    static SharedFleet fleet;
    static Map<String, String> env;
    static WebDriver browser;

    @BeforeAll
    static void startFleetAndBrowser() throws Exception {
        fleet = SharedFleet.get();
        env = fleet.env;
        fleet.revokeEveryGrant();
        if (Files.exists(STATE)) {
            try (var paths = Files.walk(STATE)) {
                paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        Files.createDirectories(STATE);
        Files.createDirectories(SHOTS);
        // Debian's browser and driver, never a downloaded one (Selenium Manager stays unused)
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File("/usr/bin/chromedriver"))
                .withLogFile(STATE.resolve("chromedriver.log").toFile()).build();
        ChromeOptions options = new ChromeOptions().setBinary("/usr/bin/chromium")
                .addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1440,1000",
                        "--user-data-dir=" + STATE.resolve("chromium"));
        browser = new ChromeDriver(service, options);
    }

    @AfterAll
    static void stopBrowser() {
        if (browser != null) {
            browser.quit();
        }
    }

    @Test
    @Order(1)
    void fleetUpPrintsTheDashboardUrlAndWritesItToFleetEnv() throws Exception {
        String url = env.get("DASHBOARD_URL");
        assertThat(url).isEqualTo(env.get("RDC_INVENTORY_URL") + "/dashboard");
        assertThat(env.get("DASHBOARD_TOKEN")).isNotBlank().isNotEqualTo(env.get("RDC_TOKEN"));
        assertThat(Files.readString(SharedFleet.LOG)).contains("dashboard          " + url);
    }

    @Test
    @Order(2)
    void aWrongTokenSeesNothingButTheLoginPage() throws Exception {
        browser.get(env.get("DASHBOARD_URL") + "/machines/" + MACHINE);
        wait(Duration.ofSeconds(10)).until(ExpectedConditions.urlContains("/dashboard/login"));
        logIn("not-the-viewer-token-of-this-fleet");
        WebElement error = wait(Duration.ofSeconds(10)).until(ExpectedConditions.visibilityOfElementLocated(By.id("login-error")));
        wait(Duration.ofSeconds(10)).until(d -> !error.getText().isBlank());
        assertThat(error.getText()).contains("refused");
        assertThat(browser.getCurrentUrl()).contains("/dashboard/login");
        assertThat(browser.getPageSource()).doesNotContain("NVIDIA", "nvidia.com/gpu", "gpu-a");
        assertThat(script("return sessionStorage.length")).isEqualTo(0L);
        // the data itself answers 401 without the token, whatever the page does
        assertThat(script("return fetch('/api/v1/dashboard/machines/" + MACHINE + "').then(r => r.status)")).isEqualTo(401L);
        screenshot("login");
    }

    @Test
    @Order(3)
    void theViewerTokenLogsInAndTheFleetShowsTheMachine() throws Exception {
        browser.get(env.get("DASHBOARD_URL"));
        wait(Duration.ofSeconds(10)).until(ExpectedConditions.urlContains("/dashboard/login"));
        logIn(env.get("DASHBOARD_TOKEN"));
        wait(Duration.ofSeconds(10)).until(d -> d.getCurrentUrl().endsWith("/dashboard"));
        awaitText(By.cssSelector("#fleet-table tr[data-machine='" + MACHINE + "']"),
                "2 × nvidia NVIDIA H100 80GB HBM3", "1 × amd", "synced", "verified");
        // the token stays in this tab's session storage, never in the address
        assertThat(script("return sessionStorage.getItem('rediacc.dashboard.viewer-token')")).isEqualTo(env.get("DASHBOARD_TOKEN"));
        assertThat(browser.getCurrentUrl()).doesNotContain(env.get("DASHBOARD_TOKEN"));
        // the filters: an Intel filter hides this NVIDIA and AMD machine, an NVIDIA filter shows it again
        new org.openqa.selenium.support.ui.Select(browser.findElement(By.id("f-vendor"))).selectByValue("intel");
        wait(Duration.ofSeconds(10)).until(ExpectedConditions.textToBePresentInElementLocated(By.id("fleet-table"), "No machine matches"));
        new org.openqa.selenium.support.ui.Select(browser.findElement(By.id("f-vendor"))).selectByValue("nvidia");
        wait(Duration.ofSeconds(10)).until(ExpectedConditions.presenceOfElementLocated(
                By.cssSelector("#fleet-table tr[data-machine='" + MACHINE + "']")));
        awaitLive();
        // keyboard and screen readers: every visible field has a label, the first Tab reaches the skip link,
        // and the table's columns are headers
        assertThat(script("return [...document.querySelectorAll('input:not([type=hidden]), select')]"
                + ".every(el => el.labels.length > 0)")).isEqualTo(true);
        browser.navigate().refresh(); // nothing focused: the first Tab starts at the top of the page
        awaitText(By.cssSelector("#fleet-table tr[data-machine='" + MACHINE + "']"), MACHINE);
        new org.openqa.selenium.interactions.Actions(browser).sendKeys(org.openqa.selenium.Keys.TAB).perform();
        assertThat(script("return document.activeElement.textContent")).isEqualTo("Skip to content");
        assertThat(browser.findElements(By.cssSelector("#fleet-table thead th[scope=col]"))).hasSize(7);
        screenshot("fleet");
    }

    @Test
    @Order(4)
    void bothReposGrantsAppearOnTheMachinePageWithinASecondWithoutAReload() throws Exception {
        browser.get(env.get("DASHBOARD_URL") + "/machines/" + MACHINE);
        wait(Duration.ofSeconds(20)).until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("tr[data-device='nvidia.com/gpu=1']")));
        awaitLive();
        script("window.stillTheSamePage = true");
        assertThat(holders("nvidia.com/gpu=1")).isEqualTo("free");

        grantAndSee("gpu-a", "nvidia.com/gpu=1", false, "gpu-a");
        grantAndSee("gpu-a-fork", "nvidia.com/gpu=1", false, "gpu-a, gpu-a-fork");
        // renderD130 is the AMD card's node: renderD129 is card 1's, which gpu-a shares, and exclusive reserves the card
        grantAndSee("gpu-a-fork", "rediacc.io/dri=renderD130", true, "gpu-a-fork exclusive");
        assertThat(script("return window.stillTheSamePage === true")).as("the page was not reloaded").isEqualTo(true);
        screenshot("machine");
    }

    @Test
    @Order(5)
    void aRefusedDockerRunAppearsAmongTheRefusalsWithItsFix() throws Exception {
        browser.get(env.get("DASHBOARD_URL") + "/refusals");
        awaitLive();
        Result run = docker("GPU_A_FORK", "run", "--rm", "--device", "nvidia.com/gpu=0", "ubuntu:24.04", "true");
        assertThat(run.exit()).isNotZero();
        assertThat(run.err()).contains("nvidia.com/gpu=0 is not granted to repo gpu-a-fork");
        awaitText(By.cssSelector("tr[data-repo='gpu-a-fork'][data-rule='cdi-not-granted']"),
                "nvidia.com/gpu=0 is not granted to repo gpu-a-fork",
                "rdc repo gpu grant gpu-a-fork@" + MACHINE + " --device nvidia.com/gpu=0");
        screenshot("refusals");
    }

    @Test
    @Order(6)
    void theRepoPageShowsItsGrantsAndTheirHistory() throws Exception {
        browser.get(env.get("DASHBOARD_URL") + "/repos/gpu-a-fork@" + MACHINE); // a repo is its name on one machine
        awaitText(By.id("repo-grants"), "nvidia.com/gpu=1", "rediacc.io/dri=renderD130 exclusive");
        awaitText(By.id("repo-history"), "granted " + MACHINE + " rediacc.io/dri=renderD130 yes",
                "granted " + MACHINE + " nvidia.com/gpu=1 no");
        awaitText(By.cssSelector("tr[data-repo='gpu-a-fork'][data-rule='cdi-not-granted']"), "nvidia.com/gpu=0");
        screenshot("repo");
    }

    private void grantAndSee(String repo, String device, boolean exclusive, String holders) throws Exception {
        List<String> args = new ArrayList<>(List.of("repo", "gpu", "grant", repo + "@" + MACHINE, "--device", device));
        if (exclusive) {
            args.add("--exclusive");
        }
        Result grant = rdc(args.toArray(String[]::new));
        assertThat(grant.exit()).as(grant.all()).isZero();
        long returned = System.nanoTime();
        wait(LIVE_WITHIN).until(d -> holders.equals(holders(device)));
        System.out.printf("%s %s on the machine page %d ms after rdc returned%n", repo, device,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - returned));
    }

    private static String holders(String device) {
        return textOf(By.cssSelector("tr[data-device='" + device + "'] td.holders")).strip();
    }

    /** Waits until the element shows every part; found again on each try, since a live update replaces it. */
    private static void awaitText(By by, String... parts) {
        wait(Duration.ofSeconds(20)).until(d -> {
            String text = textOf(by);
            return java.util.Arrays.stream(parts).allMatch(text::contains);
        });
    }

    private static String textOf(By by) {
        try {
            return browser.findElement(by).getText();
        } catch (org.openqa.selenium.NoSuchElementException | org.openqa.selenium.StaleElementReferenceException e) {
            return "";
        }
    }

    private static void logIn(String token) {
        WebElement field = wait(Duration.ofSeconds(10)).until(ExpectedConditions.elementToBeClickable(By.id("token")));
        field.clear();
        field.sendKeys(token);
        browser.findElement(By.cssSelector("#login-form button[type=submit]")).click();
    }

    private static void awaitLive() {
        wait(Duration.ofSeconds(10)).until(ExpectedConditions.attributeToBe(By.id("live-status"), "data-live", "on"));
    }

    private static Object script(String js) {
        // WebDriver waits for a returned promise (a fetch) to settle
        return ((JavascriptExecutor) browser).executeScript(js);
    }

    private static WebDriverWait wait(Duration timeout) {
        return new WebDriverWait(browser, timeout, Duration.ofMillis(50));
    }

    private static void screenshot(String page) throws IOException {
        Files.write(SHOTS.resolve(page + ".png"), ((org.openqa.selenium.TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES));
    }

    private static Result rdc(String... args) throws IOException, InterruptedException {
        return fleet.rdc(args);
    }

    private static Result docker(String repo, String... args) throws IOException, InterruptedException {
        return fleet.docker(repo, args);
    }
}
