package io.bellwether.spring;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Reports a bad {@code bellwether.*} property as Spring Boot reports its own: what is wrong, and what to do. */
final class BellwetherFailureAnalyzer extends AbstractFailureAnalyzer<BellwetherConfigurationException> {
    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, BellwetherConfigurationException cause) {
        return new FailureAnalysis(
                cause.getMessage(),
                "Correct " + cause.property() + " (see docs/spring-boot.md for every bellwether.* property).",
                cause);
    }
}
