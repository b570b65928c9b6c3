/**
 * Garcia-Molina's Invitation algorithm: members form groups under a coordinator and coordinators invite each
 * other's groups to merge, so a partitioned cluster runs one group per side and merges them when it heals.
 * Users configure it with {@link io.bellwether.invitation.InvitationConfig}; the elector, messages and codec
 * are used by the runtime and the simulator. See {@code docs/algorithms.md}.
 */
package io.bellwether.invitation;
