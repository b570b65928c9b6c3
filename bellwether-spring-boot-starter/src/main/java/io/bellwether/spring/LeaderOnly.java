package io.bellwether.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated method only while this instance leads: on a {@code @Scheduled} method, the job of a group of
 * instances runs on exactly one of them.
 *
 * <p>What a call does:
 *
 * <ul>
 *   <li>If this instance does not hold a valid leadership of the method's group when the call starts (not leading,
 *       not started yet, or shutting down), the method is not run: the call returns at once with {@code null} (zero
 *       or {@code false} for a primitive return type), logged at DEBUG and counted ({@code
 *       bellwether.leader.only.skipped} when Micrometer is present).
 *   <li>Otherwise it runs on the calling thread (the scheduler's), with the leadership at hand: as an argument for a
 *       parameter of type {@link io.bellwether.Leadership} (the caller passes {@code null}), and from {@link
 *       CurrentLeadership#get()} (for {@code @Scheduled} methods, which Spring allows no parameters).
 *   <li>If the leadership is revoked while the method runs ({@code Leadership.revoked()} completes, which happens
 *       before its validity ends), the calling thread is interrupted at once. That is the whole guarantee: a method
 *       that ignores interrupts runs on while another instance may already lead. Call {@code
 *       leadership.checkValid()} right before each side effect and pass {@code leadership.epoch()} as a fencing
 *       token (docs/fencing.md). A run cut short this way is the normal end of a run: an exception it throws is
 *       logged at DEBUG and not rethrown, and the thread's interrupt flag is cleared before the call returns, so
 *       that the scheduler's thread is not left interrupted (by the outermost call, when one leader-only method
 *       calls another: the outer one sees the interrupt too).
 *   <li>On shutdown the starter interrupts running methods first, waits up to {@code bellwether.stop-timeout} for
 *       them to return, then resigns (docs/spring-boot.md).
 * </ul>
 *
 * <p>The method must be called through its Spring bean (a proxy), as for {@code @Transactional}: a call from within
 * the same object is not intercepted.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface LeaderOnly {
    /**
     * The election group whose leader runs the method. Empty (the default): the application's election, {@code
     * bellwether.group}. Any other name: an election of its own, with the same properties and store or peers,
     * created and started at the first call (which therefore finds no leader yet and is skipped), so that different
     * jobs can be led by different instances.
     */
    String group() default "";
}
