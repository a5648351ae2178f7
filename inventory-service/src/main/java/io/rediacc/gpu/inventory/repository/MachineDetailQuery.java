package io.rediacc.gpu.inventory.repository;

import com.fasterxml.jackson.databind.ObjectReader;
import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.MachineInventory;
import io.rediacc.gpu.contracts.events.RepoInfo;
import io.rediacc.gpu.contracts.api.GateView;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;

/**
 * One machine with everything its detail shows, in one statement: the lists, the toolkit and the spec
 * problems come back as one JSON object built by the database, so the answer costs one round trip
 * instead of one per table, and one parse instead of one per list (each parse has its own parser,
 * symbol table and context: at 10,000 machines that was a third of what a read allocated).
 */
@ApplicationScoped
public class MachineDetailQuery {

    private static final String SQL = "SELECT m.name, m.platform, m.generated_at, m.agent_version, m.persistenced_socket,"
            + " json_build_object("
            + "'toolkit', nullif(btrim(m.toolkit_json), '')::json,"
            + " 'specProblems', nullif(btrim(m.spec_problems_json), '')::json,"
            + " 'gpus', (SELECT coalesce(json_agg(json_build_object('index', g.gpu_index, 'vendor', g.vendor, 'name', g.name,"
            + " 'uuid', g.uuid, 'pciBusId', g.pci_bus_id, 'driverVersion', g.driver_version, 'memoryMiB', g.memory_mib,"
            + " 'renderNode', g.render_node, 'migMode', g.mig_mode) ORDER BY g.gpu_index, g.id), '[]'::json)"
            + " FROM gpu g WHERE g.machine = m.name),"
            + " 'devices', (SELECT coalesce(json_agg(json_build_object('name', d.name, 'deviceNodes', d.device_nodes_json::json,"
            + " 'specFile', d.spec_file, 'specDigest', d.spec_digest) ORDER BY d.name, d.id), '[]'::json)"
            + " FROM cdi_device d WHERE d.machine = m.name),"
            + " 'repos', (SELECT coalesce(json_agg(json_build_object('name', r.name, 'guid', r.guid, 'forkOf', r.fork_of)"
            + " ORDER BY r.name, r.id), '[]'::json) FROM machine_repo r WHERE r.machine = m.name),"
            + " 'gates', (SELECT coalesce(json_agg(json_build_object('gateId', gt.gate_id, 'appliedVersion', gt.applied_version,"
            + " 'state', gt.state, 'live', gt.live_until > $2, 'syncedAt', gt.synced_at, 'lastSeenAt', gt.last_seen_at,"
            + " 'heartbeatSeconds', gt.heartbeat_seconds, 'daemons', gt.daemons_json::json) ORDER BY gt.gate_id), '[]'::json)"
            + " FROM gate gt WHERE gt.machine = m.name),"
            // the grants of the machine's live gates only: a gate gone quiet no longer says who holds what
            + " 'liveGrants', (SELECT coalesce(json_agg(json_build_object('device', gg.device, 'gateId', gg.gate_id,"
            + " 'repoGuid', gg.repo_guid, 'repoName', gg.repo_name, 'exclusive', gg.exclusive)"
            + " ORDER BY gg.device, gg.repo_name, gg.id), '[]'::json)"
            + " FROM gate_grant gg JOIN gate gt ON gt.gate_key = gg.gate_key"
            + " WHERE gt.machine = m.name AND gt.live_until > $2))::text"
            + " FROM machine m WHERE m.name = $1";

    /** Built once: a reader per call would construct the target type again each time. */
    private static final ObjectReader PARTS = EventJson.mapper().readerFor(Parts.class);

    /** A grantable CDI device as stored. */
    public record Device(String name, List<String> deviceNodes, String specFile, String specDigest) {
    }

    /** A grant a live gate of the machine reports. */
    public record LiveGrant(String device, String gateId, String repoGuid, String repoName, boolean exclusive) {
    }

    /** The statement's JSON object: the machine's lists, its toolkit state and spec problems. */
    public record Parts(MachineInventory.ToolkitState toolkit, List<String> specProblems, List<MachineInventory.Gpu> gpus,
                        List<Device> devices, List<RepoInfo> repos, List<GateView> gates, List<LiveGrant> liveGrants) {

        public Parts {
            specProblems = specProblems == null ? List.of() : specProblems;
            gpus = gpus == null ? List.of() : gpus;
            devices = devices == null ? List.of() : devices;
            repos = repos == null ? List.of() : repos;
            gates = gates == null ? List.of() : gates;
            liveGrants = liveGrants == null ? List.of() : liveGrants;
        }
    }

    /** The machine row and its parts. */
    public record Found(String name, String platform, Instant generatedAt, String agentVersion, String persistencedSocket,
                        Parts parts) {
    }

    private final Pool pool;

    public MachineDetailQuery(Pool pool) {
        this.pool = pool;
    }

    /** Null when the machine is unknown; gates count as live when their liveness runs past {@code now}. */
    public Uni<Found> find(String machine, Instant now) {
        return pool.preparedQuery(SQL).execute(Tuple.of(machine, SqlTimes.of(now)))
                .map(rows -> {
                    var it = rows.iterator();
                    if (!it.hasNext()) {
                        return null;
                    }
                    Row r = it.next();
                    return new Found(r.getString(0), r.getString(1), SqlTimes.instant(r.getOffsetDateTime(2)), r.getString(3),
                            r.getString(4), parts(r.getString(5)));
                });
    }

    private static Parts parts(String json) {
        try {
            return PARTS.readValue(json);
        } catch (IOException e) {
            throw new UncheckedIOException("machine detail JSON is unreadable: " + e.getMessage(), e);
        }
    }
}
