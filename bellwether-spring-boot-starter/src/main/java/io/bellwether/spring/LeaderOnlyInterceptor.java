package io.bellwether.spring;

import io.bellwether.Leadership;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.annotation.AnnotatedElementUtils;

/**
 * Runs a {@link LeaderOnly} method through the {@link LeaderOnlyRegistry}, which is looked up at the first call, so
 * that proxying the application's beans does not create the election (and its DataSource) early.
 */
final class LeaderOnlyInterceptor implements MethodInterceptor {
    private final ObjectProvider<LeaderOnlyRegistry> registry;
    private final Map<Method, Target> targets = new ConcurrentHashMap<>();

    /** A method's group, name and the positions of its {@link Leadership} parameters. */
    private record Target(String group, String name, int[] leadershipParameters) {}

    LeaderOnlyInterceptor(ObjectProvider<LeaderOnlyRegistry> registry) {
        this.registry = registry;
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Method method = invocation.getMethod();
        Class<?> targetClass = invocation.getThis() == null ? null : AopUtils.getTargetClass(invocation.getThis());
        Target target = targets.computeIfAbsent(method, m -> target(AopUtils.getMostSpecificMethod(m, targetClass)));
        Object result = registry.getObject().invoke(target.group(), target.name(), leadership -> {
            Object[] arguments = invocation.getArguments();
            for (int i : target.leadershipParameters()) {
                arguments[i] = leadership;
            }
            return invocation.proceed();
        });
        return result == LeaderOnlyRegistry.SKIPPED ? nothing(method.getReturnType()) : result;
    }

    private static Target target(Method method) {
        LeaderOnly annotation = AnnotatedElementUtils.findMergedAnnotation(method, LeaderOnly.class);
        String group = annotation == null ? "" : annotation.group();
        Class<?>[] types = method.getParameterTypes();
        int[] positions = java.util.stream.IntStream.range(0, types.length)
                .filter(i -> types[i] == Leadership.class)
                .toArray();
        return new Target(group, method.getDeclaringClass().getSimpleName() + "." + method.getName(), positions);
    }

    /** What a skipped call returns: null, or a primitive type's zero. */
    private static Object nothing(Class<?> type) {
        if (!type.isPrimitive() || type == void.class) {
            return null;
        }
        if (type == boolean.class) {
            return false;
        }
        if (type == char.class) {
            return '\0';
        }
        if (type == long.class) {
            return 0L;
        }
        if (type == float.class) {
            return 0f;
        }
        if (type == double.class) {
            return 0d;
        }
        if (type == byte.class) {
            return (byte) 0;
        }
        if (type == short.class) {
            return (short) 0;
        }
        return 0;
    }
}
