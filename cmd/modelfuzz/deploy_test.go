package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// k8sObject is what the test reads of a Kubernetes manifest.
type k8sObject struct {
	Kind     string `yaml:"kind"`
	Metadata struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec struct {
		Selector       map[string]any       `yaml:"selector"`
		Ports          []struct{ Port int } `yaml:"ports"`
		ServiceName    string               `yaml:"serviceName"`
		CompletionMode string               `yaml:"completionMode"`
		Completions    int                  `yaml:"completions"`
		Parallelism    int                  `yaml:"parallelism"`
		Template       struct {
			Spec struct {
				Containers []struct {
					Name string   `yaml:"name"`
					Args []string `yaml:"args"`
					Env  []struct {
						Name string `yaml:"name"`
					} `yaml:"env"`
					VolumeMounts []struct {
						MountPath string `yaml:"mountPath"`
					} `yaml:"volumeMounts"`
				} `yaml:"containers"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

func readManifests(t *testing.T, path string) []k8sObject {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var objs []k8sObject
	for {
		var o k8sObject
		if err := dec.Decode(&o); errors.Is(err, io.EOF) {
			return objs
		} else {
			require.NoError(t, err, path)
		}
		objs = append(objs, o)
	}
}

// argsParse checks that a container's arguments are a modelfuzz command
// line: the command exists and every flag parses.
func argsParse(t *testing.T, args []string) {
	t.Helper()
	root := newRootCmd()
	cmd, rest, err := root.Find(args)
	require.NoError(t, err, "%q", args)
	require.NotEqual(t, root, cmd, "%q: no command", args)
	require.NoError(t, cmd.ParseFlags(rest), "%q", args)
	require.Empty(t, cmd.Flags().Args(), "%q: arguments left over", args)
}

func flagValue(args []string, flag string) string {
	for i, a := range args {
		if a == flag && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

// The Kubernetes example (deploy/kubernetes) is what docs/distributed.md
// says: a hub's StatefulSet with its Service, an Indexed Job of workers
// joining it by that Service, each with its own name from its index, and
// command lines modelfuzz takes.
func TestKubernetesExample(t *testing.T) {
	dir := filepath.Join("..", "..", "deploy", "kubernetes")
	hubObjs := readManifests(t, filepath.Join(dir, "hub.yaml"))
	workerObjs := readManifests(t, filepath.Join(dir, "workers.yaml"))
	byKind := map[string]k8sObject{}
	for _, o := range append(hubObjs, workerObjs...) {
		byKind[o.Kind] = o
	}
	svc, sts, job := byKind["Service"], byKind["StatefulSet"], byKind["Job"]
	require.Equal(t, "modelfuzz-hub", svc.Metadata.Name)
	require.Equal(t, svc.Metadata.Name, sts.Spec.ServiceName)
	require.Len(t, sts.Spec.Template.Spec.Containers, 1)
	hubArgs := sts.Spec.Template.Spec.Containers[0].Args
	argsParse(t, hubArgs)
	require.Equal(t, "hub", hubArgs[0])
	require.Equal(t, "0.0.0.0:4222", flagValue(hubArgs, "--listen"))
	require.Contains(t, []int{svc.Spec.Ports[0].Port, svc.Spec.Ports[1].Port}, 4222)
	require.Equal(t, sts.Spec.Template.Spec.Containers[0].VolumeMounts[0].MountPath, flagValue(hubArgs, "--dir"),
		"the hub's store is not on its volume")

	require.Equal(t, "Indexed", job.Spec.CompletionMode)
	require.Equal(t, job.Spec.Completions, job.Spec.Parallelism)
	w := job.Spec.Template.Spec.Containers[0]
	argsParse(t, w.Args)
	require.Equal(t, "run", w.Args[0])
	require.Equal(t, "nats://"+svc.Metadata.Name+":4222", flagValue(w.Args, "--join"))
	require.Contains(t, flagValue(w.Args, "--worker"), "$(JOB_COMPLETION_INDEX)", "workers of one name are refused")
	require.Equal(t, "JOB_COMPLETION_INDEX", w.Env[0].Name)
	require.True(t, strings.HasPrefix(flagValue(w.Args, "--corpus"), w.VolumeMounts[0].MountPath+"/"), "the corpus is not on the volume")
}
