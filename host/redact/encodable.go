package redact

import (
	"encoding/json"
	"fmt"
	"math"
)

// checkEncodable reports whether json.Marshal would refuse v, without
// encoding it. The views hold only what sanitize and eventMeta build, and
// of those only a float that is NaN or infinite can fail, so a walk answers
// as encoding would at a fraction of the cost; any other type is encoded
// to find out.
func checkEncodable(v any) error {
	switch v := v.(type) {
	case nil, bool, string, []string, map[string]string, []map[string]string,
		int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return nil
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("json: unsupported value: %v", v)
		}
		return nil
	case float32:
		if f := float64(v); math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("json: unsupported value: %v", v)
		}
		return nil
	case map[string]any:
		for k, e := range v {
			if err := checkEncodable(e); err != nil {
				return fmt.Errorf("%s: %w", k, err)
			}
		}
		return nil
	case []any:
		for _, e := range v {
			if err := checkEncodable(e); err != nil {
				return err
			}
		}
		return nil
	}
	_, err := json.Marshal(v)
	return err
}
