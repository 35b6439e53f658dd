package dev.peregrine.bench.report;

import dev.peregrine.testkit.Needs;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Opens the report in a real headless Chromium and checks that it drew the charts.
 */
@Tag("slow")
@Timeout(180)
class ReportInBrowserTest {
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");

    @TempDir
    Path folder;

    private List<String> chromium(final String... arguments) throws IOException {
        final List<String> command = new ArrayList<>(List.of(CHROMIUM.toString(), "--headless", "--no-sandbox",
            "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--user-data-dir=" + Files.createTempDirectory(folder, "profile")));
        command.addAll(List.of(arguments));
        return command;
    }

    private static String run(final List<String> command) throws IOException, InterruptedException {
        return run(command, ProcessBuilder.Redirect.DISCARD);
    }

    private static String run(final List<String> command, final ProcessBuilder.Redirect errors)
        throws IOException, InterruptedException {
        final Process process = new ProcessBuilder(command).redirectError(errors).start();
        process.getOutputStream().close();
        final byte[] out = process.getInputStream().readAllBytes();
        if (!process.waitFor(120, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("chromium did not finish");
        }
        return new String(out, StandardCharsets.UTF_8);
    }

    @Test
    void shouldDrawEverySeriesInHeadlessChromium() throws Exception {
        Needs.installable("chromium", Files.isExecutable(CHROMIUM), "it is not installed at " + CHROMIUM
            + " (apt-get install -y chromium); the report cannot be checked in a browser here");
        final Path report = folder.resolve("report.html");
        Files.writeString(report, HtmlReport.render(HtmlReportTest.sample()));

        final String dom = run(chromium("--dump-dom", report.toUri().toString()));

        // the report's script ran in the browser and measured every laid-out line
        assertThat(dom).contains("data-series-drawn=\"3\"");
        final Matcher lengths = Pattern.compile("class=\"series\"[^>]*data-rendered-length=\"(\\d+)\"").matcher(dom);
        int drawn = 0;
        while (lengths.find()) {
            assertThat(Integer.parseInt(lengths.group(1))).isGreaterThan(100);
            drawn++;
        }
        assertThat(drawn).isEqualTo(3);
    }

    @Test
    void shouldRenderAScreenshotThatIsNotBlank() throws Exception {
        Needs.installable("chromium", Files.isExecutable(CHROMIUM), "it is not installed at " + CHROMIUM
            + " (apt-get install -y chromium); the report cannot be checked in a browser here");
        final Path report = folder.resolve("report.html");
        Files.writeString(report, HtmlReport.render(HtmlReportTest.sample()));
        final Path png = folder.resolve("report.png");

        run(chromium("--screenshot=" + png, "--window-size=1100,900", report.toUri().toString()));

        assertThat(png).exists();
        final BufferedImage image = ImageIO.read(png.toFile());
        final Set<Integer> colours = new HashSet<>();
        for (int y = 0; y < image.getHeight(); y += 2) {
            for (int x = 0; x < image.getWidth(); x += 2) {
                colours.add(image.getRGB(x, y) & 0xffffff);
            }
        }
        // the series colours of the first chart (tcp: two transports) are on the page
        assertThat(colours).contains(0x1f77b4, 0xd62728);
    }

    @Test
    void shouldRenderEveryChartOfEveryScenarioWithoutConsoleErrors() throws Exception {
        Needs.installable("chromium", Files.isExecutable(CHROMIUM), "it is not installed at " + CHROMIUM
            + " (apt-get install -y chromium); the report cannot be checked in a browser here");
        final Path report = folder.resolve("report.html");
        final String html = HtmlReport.render(ReportChartsTest.allScenarios());
        Files.writeString(report, html);
        final Path console = folder.resolve("console.txt");

        final String dom = run(chromium("--enable-logging=stderr", "--v=0", "--dump-dom", report.toUri().toString()),
            ProcessBuilder.Redirect.to(console.toFile()));

        assertThat(dom).contains("data-series-drawn=").doesNotContain("data-script-errors=\"");
        // every console message of the page is logged as CONSOLE(line); the report writes none, so any is an error
        assertThat(Files.readAllLines(console)).noneMatch(line -> line.contains("CONSOLE") || line.contains("Uncaught"));
        final Matcher charts = Pattern.compile("<svg class=\"chart\" data-kind=\"(\\w+)\" data-scenario=\"(\\w+)\""
            + " data-series=\"(\\d+)\"[^>]*?data-rendered-size=\"(\\d+)x(\\d+)\"[^>]*?data-series-rendered=\"(\\d+)\"")
            .matcher(dom);
        final Set<String> kinds = new HashSet<>();
        int count = 0;
        while (charts.find()) {
            count++;
            kinds.add(charts.group(2) + "/" + charts.group(1));
            assertThat(Integer.parseInt(charts.group(4))).as(charts.group()).isGreaterThan(300);
            assertThat(Integer.parseInt(charts.group(5))).as(charts.group()).isGreaterThan(100);
            // each series the chart says it draws has an area or a length on the page
            assertThat(charts.group(6)).as(charts.group()).isEqualTo(charts.group(3));
        }
        assertThat(kinds).containsExactlyInAnyOrder("pingpong/percentiles", "load/rate", "throughput/bars",
            "load/percentiles");
        assertThat(count).isEqualTo(ReportChartsTest.charts(html).size());
    }
}
