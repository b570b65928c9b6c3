package io.bellwether.spring;

import io.bellwether.state.GroupNames;
import java.lang.reflect.Method;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Proxies beans with {@link LeaderOnly} methods. It runs before Spring's {@code @Scheduled} processor (a lower
 * order), so that the scheduler calls the proxy and not the bare bean; it proxies the class (so a scheduled method
 * need not be on an interface) and puts its advice before any other (a skipped call starts no transaction).
 */
final class LeaderOnlyBeanPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor {
    private static final long serialVersionUID = 1L;

    LeaderOnlyBeanPostProcessor(ObjectProvider<LeaderOnlyRegistry> registry) {
        this.advisor = new DefaultPointcutAdvisor(
                new AnnotationMatchingPointcut(null, LeaderOnly.class, true), new LeaderOnlyInterceptor(registry));
        setBeforeExistingAdvisors(true);
        setProxyTargetClass(true);
        setOrder(Ordered.LOWEST_PRECEDENCE - 100);
    }

    @Override
    protected boolean isEligible(Class<?> targetClass) {
        boolean eligible = super.isEligible(targetClass);
        if (eligible) {
            ReflectionUtils.doWithMethods(targetClass, LeaderOnlyBeanPostProcessor::checkGroup);
        }
        return eligible;
    }

    /** A bad group name fails the bean's creation, naming the method, rather than its first call. */
    private static void checkGroup(Method method) {
        LeaderOnly annotation = AnnotatedElementUtils.findMergedAnnotation(method, LeaderOnly.class);
        if (annotation != null && !annotation.group().isEmpty() && !Settings.validGroup(annotation.group())) {
            throw new IllegalStateException("@LeaderOnly(group = \"" + annotation.group() + "\") on " + method
                    + " is invalid: allowed " + GroupNames.ALLOWED);
        }
    }
}
