package io.bellwether.spring;

import io.bellwether.Election;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.actuate.info.Info;
import org.springframework.boot.actuate.info.InfoContributor;

/**
 * Adds {@code bellwether} to {@code /actuator/info}: {@code group}, {@code node}, {@code algorithm}, {@code role},
 * {@code epoch} and {@code leader} (null while none is known), a snapshot of what this instance knows.
 */
public class BellwetherInfoContributor implements InfoContributor {
    private final Election election;
    private final String algorithm;

    BellwetherInfoContributor(Election election, String algorithm) {
        this.election = election;
        this.algorithm = algorithm;
    }

    @Override
    public void contribute(Info.Builder builder) {
        Map<String, Object> info = new LinkedHashMap<>();
        info.put("group", election.group());
        info.put("node", election.self().value());
        info.put("algorithm", algorithm);
        info.put("role", election.role().name());
        info.put("epoch", election.epoch());
        info.put("leader", election.leader().map(l -> l.leader().value()).orElse(null));
        builder.withDetail("bellwether", info);
    }
}
