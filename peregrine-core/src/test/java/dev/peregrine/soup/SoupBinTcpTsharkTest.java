package dev.peregrine.soup;

import dev.peregrine.mold.MoldUDP64MessageStore;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.testkit.Needs;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static dev.peregrine.soup.SoupFixture.login;
import static dev.peregrine.soup.SoupFixture.packet;
import static dev.peregrine.soup.SoupFixture.pump;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Wireshark's {@code soupbintcp} dissector (someone else's decoder, the oracle) reads a session with our server:
 * login with a sequence number, replay, unsequenced data, heartbeats both ways, a live message, End of Session and
 * logout. The pcap is built with {@code text2pcap} from the packets each side wrote, in the order they were written
 * (a capture on {@code lo} would need CAP_NET_RAW and would see other traffic); sequence numbers stay below 2^31,
 * which the dissector reads into 32 bits.
 */
@Tag("slow")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SoupBinTcpTsharkTest {
    private static final long FIRST = 1_000_000_000L;
    private static final Pattern HEADER = Pattern.compile("^SoupBinTCP, (.*)$");
    private static final Pattern TYPE = Pattern.compile("^    Packet Type: .*\\('(.)'\\)$");
    private static final Pattern NUMBER = Pattern.compile("^    (Sequence number|Next sequence number|Requested sequence number):"
        + " (\\d+).*$");

    @TempDir
    Path dir;

    @Test
    void shouldBeDecodedByWiresharksDissectorWithoutAMalformedPacketAndWithOurTypesAndSequenceNumbers() throws Exception {
        Needs.installable("tshark and text2pcap (Wireshark)", () -> missing("tshark") != null ? missing("tshark")
            : missing("text2pcap"));
        final SoupFixture.ManualClock clock = new SoupFixture.ManualClock();
        final List<Map.Entry<Character, byte[]>> packets;
        final int serverPort;
        final int clientPort;
        final long[] unsequenced = new long[1];
        try (Reactor reactor = SoupFixture.reactor(clock);
             MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory("FEED", 64, 1 << 16)) {
            store.startAt(FIRST);
            final SoupBinTcpSession[] feed = new SoupBinTcpSession[1];
            final SoupBinTcpServer server = new SoupBinTcpServer(reactor, new SoupBinTcpServerOptions(),
                (user, password, session) -> SoupLoginDecision.accept(feed[0]),
                (id, session, buffer, offset, length) -> unsequenced[0]++);
            feed[0] = server.addSession("FEED", store);
            final MemorySegment message = MemorySegment.ofArray("quote".getBytes(StandardCharsets.US_ASCII));
            feed[0].publish(message, 0, 5);
            feed[0].publish(message, 0, 5);
            serverPort = ((InetSocketAddress)SoupFixture.listen(reactor, server)).getPort();
            try (SoupFixture.RawClient client = new SoupFixture.RawClient(server.localAddress())) {
                clientPort = ((InetSocketAddress)client.channel.getLocalAddress()).getPort();
                client.send(login("alice", "secret", "", String.valueOf(FIRST)));
                pump(reactor, () -> client.poll().size() == 3); // A, then the two messages replayed
                client.send(packet('R', ""));
                client.send(packet('U', "order-1"));
                pump(reactor, () -> unsequenced[0] == 1);
                clock.advanceMillis(1_100); // a second without sending: a Server Heartbeat
                pump(reactor, () -> client.poll().contains("H"));
                feed[0].publish(message, 0, 5); // live
                pump(reactor, () -> client.poll().size() == 5);
                feed[0].end();
                pump(reactor, () -> client.poll().contains("Z"));
                client.send(packet('O', ""));
                pump(reactor, () -> client.poll().contains("closed"));
                packets = List.copyOf(client.packets);
            }
            server.close();
        }

        final Path text = dir.resolve("session.txt");
        final StringBuilder hex = new StringBuilder();
        for (final Map.Entry<Character, byte[]> packet : packets) {
            // text2pcap -D: 'I' goes from the first port given to the second (client to server), 'O' the other way
            hex.append(packet.getKey() == 'C' ? "I" : "O").append('\n').append("000000");
            for (final byte b : packet.getValue()) {
                hex.append(String.format(" %02x", b & 0xFF));
            }
            hex.append('\n');
        }
        Files.writeString(text, hex.toString());
        final Path pcap = dir.resolve("session.pcap");
        run("text2pcap", "-D", "-T", clientPort + "," + serverPort, "-4", "127.0.0.1,127.0.0.1", text.toString(), pcap.toString());
        final String decoded = run("tshark", "-r", pcap.toString(), "-d", "tcp.port==" + serverPort + ",soupbintcp",
            "-O", "soupbintcp");

        assertThat(decoded).doesNotContain("Malformed").doesNotContain("Expert Info");
        assertThat(decoded).contains("Src Port: " + clientPort + ", Dst Port: " + serverPort); // the direction is ours
        final String first = String.valueOf(FIRST);
        assertThat(summaries(decoded)).containsExactly(
            "L Requested sequence number " + first,
            "A Next sequence number " + first,
            "S Sequence number " + first,
            "S Sequence number " + (FIRST + 1),
            "R",
            "U",
            "H",
            "S Sequence number " + (FIRST + 2),
            "Z",
            "O");
        assertThat(decoded).contains("User Name: alice").contains("Session:       FEED");
    }

    /** One line per SoupBinTCP packet the dissector decoded: its type, and the sequence number it shows, if any. */
    private static List<String> summaries(final String decoded) {
        final List<String> summaries = new ArrayList<>();
        String current = null;
        for (final String line : decoded.lines().toList()) {
            if (HEADER.matcher(line).matches()) {
                if (current != null) {
                    summaries.add(current);
                }
                current = "?";
                continue;
            }
            final Matcher type = TYPE.matcher(line);
            final Matcher number = NUMBER.matcher(line);
            if (current != null && type.matches()) {
                current = type.group(1);
            } else if (current != null && number.matches()) {
                current += " " + number.group(1) + " " + number.group(2);
            }
        }
        if (current != null) {
            summaries.add(current);
        }
        return summaries;
    }

    private static String missing(final String program) {
        for (final String directory : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
            if (Files.isExecutable(Path.of(directory, program))) {
                return null;
            }
        }
        return "no " + program + " on PATH";
    }

    private static String run(final String... command) throws IOException, InterruptedException {
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("%s ends", command[0]).isTrue();
        assertThat(process.exitValue()).as("%s exit code; output:%n%s", command[0], output).isZero();
        return output;
    }
}
