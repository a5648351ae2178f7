package io.rediacc.gpu.inventory.repository;

import io.quarkus.hibernate.reactive.panache.PanacheRepositoryBase;
import io.quarkus.panache.common.Parameters;
import io.rediacc.gpu.inventory.model.Machine;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Machines of the fleet and the fleet queries over them. */
@ApplicationScoped
public class MachineRepository implements PanacheRepositoryBase<Machine, String> {

    public Uni<List<Machine>> page(FleetFilter filter, Instant now, int page, int size) {
        Parameters params = new Parameters();
        String where = where(filter, now, params);
        return find("from Machine m" + where + " order by m.name", params).page(page, size).list();
    }

    public Uni<Long> count(FleetFilter filter, Instant now) {
        Parameters params = new Parameters();
        String where = where(filter, now, params);
        return find("from Machine m" + where, params).count();
    }

    /** Machines whose latest inventory was generated before {@code threshold}. */
    public Uni<Long> countGeneratedBefore(Instant threshold) {
        return count("generatedAt < ?1", threshold);
    }

    private static String where(FleetFilter filter, Instant now, Parameters params) {
        List<String> clauses = new ArrayList<>();
        if (filter.vendor() != null) {
            clauses.add("exists (select 1 from GpuRow g where g.machine = m.name and lower(g.vendor) = :vendor)");
            params.and("vendor", filter.vendor().toLowerCase(Locale.ROOT));
        }
        if (filter.product() != null) {
            clauses.add("exists (select 1 from GpuRow g where g.machine = m.name and lower(g.name) like :product escape '"
                    + LikePattern.ESCAPE + "')");
            params.and("product", LikePattern.contains(filter.product()));
        }
        if (filter.freeDevices()) {
            // Free = no live gate reports an exclusive grant of that exact name (names are independent:
            // an exclusive grant of nvidia.com/gpu=all does not reserve nvidia.com/gpu=0).
            clauses.add("exists (select 1 from CdiDeviceRow d where d.machine = m.name and not exists ("
                    + "select 1 from GateGrantRow gg where gg.machine = d.machine and gg.device = d.name"
                    + " and gg.exclusive = true"
                    + " and gg.gateKey in (select gt.key from Gate gt where gt.liveUntil > :now)))");
            params.and("now", now);
        }
        return clauses.isEmpty() ? "" : " where " + String.join(" and ", clauses);
    }
}
