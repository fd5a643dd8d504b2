package toolhost

import (
	"context"
	"net/netip"
)

// metadataResolver answers every name with the cloud metadata address.
type metadataResolver struct{}

func (metadataResolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return []netip.Addr{netip.MustParseAddr("169.254.169.254")}, nil
}
