package gatehouse_test

import (
	"errors"
	"testing"

	"github.com/gatehouse/gatehouse"
)

func TestRolePermissionTable(t *testing.T) {
	if !gatehouse.RoleViewer.Below(gatehouse.RoleOperator) || !gatehouse.RoleOperator.Below(gatehouse.RoleAdmin) || gatehouse.RoleAdmin.Below(gatehouse.RoleViewer) {
		t.Error("roles are not ordered admin > operator > viewer")
	}
	if _, err := gatehouse.ParseRole("owner"); !errors.Is(err, gatehouse.ErrInvalid) {
		t.Errorf("ParseRole(owner): %v", err)
	}
}
