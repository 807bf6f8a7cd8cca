// Command kubectl is the upstream kubectl, built from the k8s.io/kubernetes module (the
// same release as kube-apiserver), so that no kubectl has to be installed.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/component-base/logs"
	"k8s.io/kubectl/pkg/cmd"
	"k8s.io/kubectl/pkg/cmd/util"

	// the exec and OIDC credential plugins a kubeconfig may name
	_ "k8s.io/client-go/plugin/pkg/client/auth"
)

func main() {
	// the verbosity is read before the command is built, so that building it logs at -v too
	logs.GlogSetter(cmd.GetLogVerbosity(os.Args)) // nolint:errcheck
	command := cmd.NewDefaultKubectlCommand()
	if err := cli.RunNoErrOutput(command); err != nil {
		util.CheckErr(err)
	}
}
