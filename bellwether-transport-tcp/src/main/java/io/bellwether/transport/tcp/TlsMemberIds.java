package io.bellwether.transport.tcp;

import io.bellwether.NodeId;
import io.netty.channel.Channel;
import io.netty.handler.ssl.SslHandler;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * Binds TLS certificates to member ids: with mutual TLS, a member's certificate carries its node id as the
 * subject's common name ({@code CN=<id>}), and each end checks, once TLS is up and the peer has named itself in
 * the handshake, that the certificate the peer presented names that id. A member holding a certificate the
 * cluster's authority signed can then not claim another member's id.
 */
final class TlsMemberIds {
    private TlsMemberIds() {}

    /**
     * Why the certificate {@code ch}'s peer presented does not name {@code claimed}, or null if it does or if the
     * channel has no TLS.
     */
    static String problem(Channel ch, NodeId claimed) {
        SslHandler tls = ch.pipeline().get(SslHandler.class);
        if (tls == null) {
            return null;
        }
        Certificate[] chain;
        try {
            chain = tls.engine().getSession().getPeerCertificates();
        } catch (SSLPeerUnverifiedException e) {
            return "'" + claimed + "' presented no certificate, which must name it (CN=" + claimed + ")";
        }
        if (chain.length == 0 || !(chain[0] instanceof X509Certificate x509)) {
            return "'" + claimed + "' presented no X.509 certificate";
        }
        List<String> names = commonNames(x509);
        if (names.size() == 1 && names.get(0).equals(claimed.value())) {
            return null;
        }
        return "'" + claimed + "' presented a certificate for "
                + x509.getSubjectX500Principal().getName() + ", whose common name must be its id (CN=" + claimed + ")";
    }

    static List<String> commonNames(X509Certificate certificate) {
        List<String> names = new ArrayList<>();
        try {
            for (Rdn rdn : new LdapName(certificate.getSubjectX500Principal().getName()).getRdns()) {
                if (rdn.getType().equalsIgnoreCase("CN")) {
                    names.add(String.valueOf(rdn.getValue()));
                }
            }
        } catch (InvalidNameException e) {
            return List.of();
        }
        return names;
    }
}
